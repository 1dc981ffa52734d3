import { cidrContains, gatewayIp, type Ipv4Cidr, parseCidr, parseIpv4 } from '../net/ipv4.js';
import type { Connection } from './connection.js';

/** Antrea's FlowType numbers (flow/v1alpha1 FlowType). */
export const FlowType = {
  unspecified: 0,
  intraNode: 1,
  interNode: 2,
  toExternal: 3,
  fromExternal: 4,
} as const;

/** A flow Antrea does not export (to a gateway, or between two non-Pod addresses). */
export const UNSUPPORTED_FLOW = 0xff;

/** Whether an address is in a Node's podCIDR, and whether it is that CIDR's gateway. */
export type IpClassifier = (ip: string) => { isPod: boolean; isGateway: boolean };

/** Addresses remembered per classifier; the cache starts over beyond this. */
const CLASSIFIED_MAX = 65_536;

/**
 * Classifies against the cluster's IPv4 podCIDRs (this Node's and its peers'). Runs twice per
 * exported record, over few distinct addresses: answers are kept until the CIDR list changes. The
 * list is compared only when `cidrs()` answers another array than last time (a changed list is a
 * new array; `readOncePerTurn` keeps one array per export round).
 */
export function podCidrClassifier(cidrs: () => readonly string[]): IpClassifier {
  let last: readonly string[] | undefined;
  let key = '';
  let parsed: Array<{ cidr: Ipv4Cidr; gateway: number }> = [];
  const known = new Map<string, { isPod: boolean; isGateway: boolean }>();
  return (ip) => {
    const list = cidrs();
    const k = list === last ? key : list.join(',');
    last = list;
    if (k !== key) {
      key = k;
      known.clear();
      parsed = list
        .filter((c) => !c.includes(':'))
        .map((c) => ({ cidr: parseCidr(c), gateway: parseIpv4(gatewayIp(c)) }));
    }
    const hit = known.get(ip);
    if (hit) return hit;
    const v = parseIpv4(ip);
    const p = parsed.find((x) => cidrContains(x.cidr, v));
    const answer = { isPod: p !== undefined, isGateway: p?.gateway === v };
    if (known.size >= CLASSIFIED_MAX) known.clear();
    known.set(ip, answer);
    return answer;
  };
}

/**
 * `read`'s answer kept until the current synchronous run ends (the next microtask): for a getter
 * that builds its answer (the agent's podCIDR list is sorted from its peers on every call) and is
 * consulted for every record of an export round. Nothing else runs within a synchronous run, so
 * the answer cannot go stale in it.
 */
export function readOncePerTurn<T>(read: () => T): () => T {
  let cached: { value: T } | undefined;
  return () => {
    if (!cached) {
      cached = { value: read() };
      queueMicrotask(() => {
        cached = undefined;
      });
    }
    return cached.value;
  };
}

/** Antrea's findFlowType: where the connection's two ends are. */
export function flowTypeOf(
  c: Readonly<Connection>,
  classify: IpClassifier,
  networkPolicyOnly: boolean,
): number {
  if (networkPolicyOnly) return c.srcPod && c.dstPod ? FlowType.intraNode : FlowType.interNode;
  const src = classify(c.srcIp);
  const dst = classify(c.dstIp);
  if (dst.isGateway) return UNSUPPORTED_FLOW;
  // From a remote Node's gateway: the destination Node's half of a connection from outside.
  if (src.isGateway) return c.dstPod ? FlowType.interNode : UNSUPPORTED_FLOW;
  if (!src.isPod) return dst.isPod ? FlowType.fromExternal : UNSUPPORTED_FLOW;
  if (!dst.isPod) return FlowType.toExternal;
  return c.srcPod && c.dstPod ? FlowType.intraNode : FlowType.interNode;
}
