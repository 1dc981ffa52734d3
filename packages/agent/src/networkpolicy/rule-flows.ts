import type { GroupMember, Service } from '@antrea-ts/apis';
import type { MatchSpec } from '@antrea-ts/openflow';
import { parseIpv4 } from '../net/ipv4.js';
import {
  type ConjunctionSpec,
  type IsolationSpec,
  POLICY_PRIORITY,
  type PolicyAction,
} from '../openflow/features/network-policy.js';
import { matchMarks, ServiceGroupIDField } from '../openflow/fields.js';
import type { TableName } from '../openflow/pipeline.js';
import { type Interval, intervalsToCidrs, ipBlockIntervals, ipv4Of, isEverything } from './ip-set.js';
import { portRangeMasks } from './port-range.js';
import type { CompletedRule } from './rule-cache.js';

/** The static tier priority of the baseline tier, whose rules come after K8s NetworkPolicies. */
export const BASELINE_TIER_PRIORITY = 253;

const PROTO_FIELD = { TCP: 'tcp', UDP: 'udp', SCTP: 'sctp' } as const;

/** A service with its named port resolved (or not: then it matches nothing). */
interface ResolvedService {
  readonly svc: Service;
  readonly port: number | undefined;
}

/**
 * Resolves named ports against one Pod's ports. Numeric ports pass unchanged; a named port the Pod
 * does not declare drops out (Antrea: the rule does not apply to that Pod for that port). K8s and
 * Antrea-native policies always send a protocol (TCP by default); an AdminNetworkPolicy's named
 * port comes without one and takes the protocol of the Pod's port of that name, as in Antrea.
 */
export function resolveServices(
  services: readonly Service[],
  member: GroupMember | undefined,
): ResolvedService[] {
  const out: ResolvedService[] = [];
  for (const svc of services) {
    if (typeof svc.port === 'string') {
      const np = member?.ports?.find(
        (p) => p.name === svc.port && (svc.protocol === undefined || (p.protocol ?? 'TCP') === svc.protocol),
      );
      if (!np) continue;
      out.push({
        svc: svc.protocol === undefined ? { ...svc, protocol: np.protocol ?? 'TCP' } : svc,
        port: np.port,
      });
    } else out.push({ svc, port: svc.port });
  }
  return out;
}

/** Match specs of one service (port ranges become several masked matches). */
export function serviceMatches(r: ResolvedService): MatchSpec[] {
  const proto = r.svc.protocol ?? 'TCP';
  if (proto === 'ICMP') {
    const m: MatchSpec = { icmp: true };
    if (r.svc.icmpType !== undefined) m['icmp_type'] = r.svc.icmpType;
    if (r.svc.icmpCode !== undefined) m['icmp_code'] = r.svc.icmpCode;
    return [m];
  }
  if (proto === 'IGMP') return [{ ip: true, ip_proto: 2 }];
  const p = PROTO_FIELD[proto];
  const dst =
    r.port === undefined
      ? [undefined]
      : r.svc.endPort !== undefined && r.svc.endPort > r.port
        ? portRangeMasks(r.port, r.svc.endPort)
        : [{ value: r.port, mask: 0xffff }];
  const src =
    r.svc.srcPort === undefined
      ? [undefined]
      : portRangeMasks(r.svc.srcPort, Math.max(r.svc.srcPort, r.svc.srcEndPort ?? r.svc.srcPort));
  const out: MatchSpec[] = [];
  for (const d of dst) {
    for (const s of src) {
      const m: MatchSpec = { [p]: true };
      if (d) m[`${p}_dst`] = d.mask === 0xffff ? d.value : { value: d.value, mask: d.mask };
      if (s) m[`${p}_src`] = s.mask === 0xffff ? s.value : { value: s.value, mask: s.mask };
      out.push(m);
    }
  }
  return out;
}

function serviceClause(resolved: readonly ResolvedService[] | undefined): MatchSpec[] {
  if (!resolved) return [{ ip: true }];
  const seen = new Map<string, MatchSpec>();
  for (const r of resolved) for (const m of serviceMatches(r)) seen.set(JSON.stringify(m), m);
  return [...seen.values()];
}

/** A rule split by named-port resolution: each part has one service list. */
interface RulePart {
  readonly key: string;
  readonly services: readonly ResolvedService[] | undefined;
  readonly peerIntervals: Interval[];
  /** Select groups of `toServices` peers: the packet's ServiceGroupID is one of them. */
  readonly serviceGroupIds: readonly number[];
  readonly ofports: number[];
}

/** The IPv4 addresses of group members, one interval each. */
export function memberIntervals(members: readonly GroupMember[]): Interval[] {
  const out: Interval[] = [];
  for (const m of members) {
    for (const ip of m.ips ?? []) {
      const n = ipv4Of(ip);
      if (n !== undefined) out.push([n, n]);
    }
  }
  return out;
}

/** The addresses FQDN patterns stand for now (the agent's DNS cache). */
export type FqdnAddresses = (patterns: readonly string[]) => readonly string[];
/** The select group ids of Services (`<namespace>/<name>`) now (AntreaProxy's proxier). */
export type ServiceGroupIds = (svcKeys: readonly string[]) => readonly number[];

/** Where peers that are not addresses in the rule get their matches from at realization time. */
export interface PeerSources {
  readonly fqdnAddresses?: FqdnAddresses;
  readonly serviceGroupIds?: ServiceGroupIds;
}

function splitRule(rule: CompletedRule, sources: PeerSources): RulePart[] {
  const { fqdnAddresses, serviceGroupIds } = sources;
  const named = rule.services.some((s) => typeof s.port === 'string');
  // Service groups are like ipBlocks too (numeric ports only); without AntreaProxy there are none.
  const groupIds =
    rule.peer.toServices.length > 0 && serviceGroupIds ? [...serviceGroupIds(rule.peer.toServices)] : [];
  // FQDN addresses are like ipBlocks: no Pods behind them, so only numeric ports apply.
  const fqdnIps = rule.peer.fqdns.length > 0 && fqdnAddresses ? fqdnAddresses(rule.peer.fqdns) : [];
  const blockIntervals = [
    ...(rule.peer.ipBlocks ?? []).flatMap(ipBlockIntervals),
    ...fqdnIps.map(parseIpv4).map((n): Interval => [n, n]),
  ];
  const ofports = rule.appliedTo.map((a) => a.pod.ofport);
  if (rule.services.length === 0) {
    return [
      {
        key: '',
        services: undefined,
        peerIntervals: [...blockIntervals, ...memberIntervals(rule.peer.members)],
        serviceGroupIds: groupIds,
        ofports,
      },
    ];
  }
  if (!named) {
    return [
      {
        key: '',
        services: resolveServices(rule.services, undefined),
        peerIntervals: [...blockIntervals, ...memberIntervals(rule.peer.members)],
        serviceGroupIds: groupIds,
        ofports,
      },
    ];
  }
  // Named ports resolve per Pod: per applied-to Pod for ingress, per peer Pod for egress.
  const parts = new Map<
    string,
    { services: ResolvedService[]; peer: Interval[]; groupIds: number[]; ofports: number[] }
  >();
  const part = (services: ResolvedService[]) => {
    const key = services.map((s) => `${s.svc.protocol ?? 'TCP'}:${s.port}:${s.svc.endPort ?? ''}`).join(',');
    let p = parts.get(key);
    if (!p) {
      p = { services, peer: [], groupIds: [], ofports: [] };
      parts.set(key, p);
    }
    return p;
  };
  if (rule.direction === 'In') {
    const peer = [...blockIntervals, ...memberIntervals(rule.peer.members)];
    for (const a of rule.appliedTo) {
      const p = part(resolveServices(rule.services, a.member));
      p.ofports.push(a.pod.ofport);
      p.peer = peer;
    }
  } else {
    for (const m of rule.peer.members)
      part(resolveServices(rule.services, m)).peer.push(...memberIntervals([m]));
    // ipBlocks carry no Pods, so only the numeric ports of the rule apply to them.
    const numeric = part(resolveServices(rule.services, undefined));
    numeric.peer.push(...blockIntervals);
    numeric.groupIds.push(...groupIds);
    for (const p of parts.values()) p.ofports = ofports;
  }
  return [...parts.entries()]
    .filter(([, p]) => p.services.length > 0)
    .map(([key, p]) => ({
      key,
      services: p.services,
      peerIntervals: p.peer,
      serviceGroupIds: p.groupIds,
      ofports: p.ofports,
    }));
}

/** Stable conjunction ids per rule part; ids of rules that went are reused only after others. */
export class ConjIdAllocator {
  private readonly ids = new Map<string, number>();
  private next = 1;
  private free: number[] = [];

  constructor(private readonly max = 0xffffffff) {}

  get(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.free.shift() ?? this.next++;
      if (id > this.max) throw new RangeError('conjunction ids exhausted');
      this.ids.set(key, id);
    }
    return id;
  }

  /** Releases every id whose key is not in `live`. */
  retain(live: ReadonlySet<string>): void {
    for (const [key, id] of this.ids) {
      if (!live.has(key)) {
        this.ids.delete(key);
        this.free.push(id);
      }
    }
  }

  entries(): IterableIterator<[string, number]> {
    return this.ids.entries();
  }
}

export interface RealizedRule {
  readonly rule: CompletedRule;
  readonly conjIds: number[];
}

export interface ComputedPolicyFlows {
  readonly conjunctions: ConjunctionSpec[];
  readonly isolation: IsolationSpec;
  /** Rules (with at least one local Pod) and their conjunction ids, for stats. */
  readonly realized: RealizedRule[];
}

const tableOf = (dir: 'In' | 'Out', kind: 'k8s' | 'antrea' | 'baseline'): TableName =>
  dir === 'In'
    ? kind === 'k8s'
      ? 'IngressRule'
      : kind === 'antrea'
        ? 'AntreaPolicyIngressRule'
        : 'IngressDefaultRule'
    : kind === 'k8s'
      ? 'EgressRule'
      : kind === 'antrea'
        ? 'AntreaPolicyEgressRule'
        : 'EgressDefaultRule';

/**
 * The peer matches of `toServices`: AntreaProxy loaded the service port's group id into reg7 in
 * ServiceLB (new connections only: established ones skip both the service and the rule tables),
 * and the packet reaches the egress rule tables already DNATed to the endpoint. One flow per
 * group, in the same clause as the rule's address peers (either one lets the packet match).
 */
function serviceGroupMatches(groupIds: readonly number[]): MatchSpec[] {
  return [...new Set(groupIds)]
    .sort((a, b) => a - b)
    .map((value) => ({ ip: true, ...matchMarks({ field: ServiceGroupIDField, value }) }));
}

/**
 * The applied-to clause: ingress matches the output port (reg1) of the destination Pod; egress
 * matches the source Pod's IP, as Antrea does, so a Pod's packets are subject to its egress rules
 * whichever port they enter by (spoof guard has checked IP against port already).
 */
function appliedToClause(r: CompletedRule, ofports: readonly number[]): MatchSpec[] {
  const set = new Set(ofports);
  if (r.direction === 'In') return [...set].sort((a, b) => a - b).map((p) => ({ ip: true, reg1: p }));
  const ips = r.appliedTo.filter((a) => set.has(a.pod.ofport)).map((a) => a.pod.ip);
  return [...new Set(ips)].sort().map((ip) => ({ ip: true, nw_src: ip }));
}

/**
 * Turns completed rules into conjunctions (Antrea reconciler.go): priorities from tier priority,
 * policy priority and rule order; peers collapsed to CIDRs; isolation for K8s policies.
 */
export function computePolicyFlows(
  rules: readonly CompletedRule[],
  ids: ConjIdAllocator,
  sources: PeerSources = {},
): ComputedPolicyFlows {
  const conjunctions: ConjunctionSpec[] = [];
  const realized: RealizedRule[] = [];
  const isoIn = new Set<number>();
  const isoOut = new Set<string>();
  const live = new Set<string>();

  // Antrea-native rule order per direction and kind: a rank per (tier, policy priority, rule, name).
  const native = rules
    .filter((r) => !r.k8s && r.appliedTo.length > 0)
    .sort(
      (a, b) =>
        (a.policy.tierPriority ?? 0) - (b.policy.tierPriority ?? 0) ||
        (a.policy.priority ?? 0) - (b.policy.priority ?? 0) ||
        a.rule.priority - b.rule.priority ||
        a.policy.metadata.name.localeCompare(b.policy.metadata.name) ||
        a.index - b.index,
    );
  const priorityOf = new Map<CompletedRule, number>();
  const rank = { In: { antrea: 0, baseline: 0 }, Out: { antrea: 0, baseline: 0 } };
  for (const r of native) {
    const baseline = (r.policy.tierPriority ?? 0) >= BASELINE_TIER_PRIORITY;
    const kind = baseline ? 'baseline' : 'antrea';
    const n = rank[r.direction][kind]++;
    const p = baseline ? POLICY_PRIORITY.baselineTop - n : POLICY_PRIORITY.antreaTop - n;
    if (p <= (baseline ? 10 : 100)) throw new RangeError(`too many ${kind} rules for OpenFlow priorities`);
    priorityOf.set(r, p);
  }

  for (const r of rules) {
    if (r.appliedTo.length === 0) continue;
    if (r.k8s) {
      for (const a of r.appliedTo) {
        if (r.direction === 'In') isoIn.add(a.pod.ofport);
        else isoOut.add(a.pod.ip);
      }
      if (r.peer.none) continue;
    }
    const baseline = !r.k8s && (r.policy.tierPriority ?? 0) >= BASELINE_TIER_PRIORITY;
    const kind = r.k8s ? 'k8s' : baseline ? 'baseline' : 'antrea';
    const table = tableOf(r.direction, kind);
    const priority = r.k8s ? POLICY_PRIORITY.k8sClause : priorityOf.get(r)!;
    const actionPriority = r.k8s ? POLICY_PRIORITY.k8sAction : priority;
    const conjIds: number[] = [];
    for (const part of splitRule(r, sources)) {
      if (part.ofports.length === 0) continue;
      const everything = isEverything(part.peerIntervals);
      const cidrs = everything ? [] : intervalsToCidrs(part.peerIntervals);
      // A peer set that is empty selects nothing: no flows (the rule may fill in later, e.g. when
      // a toServices Service is created).
      if (!everything && cidrs.length === 0 && part.serviceGroupIds.length === 0) continue;
      const peerField = r.direction === 'In' ? 'nw_src' : 'nw_dst';
      const key = `${r.id}#${part.key}`;
      live.add(key);
      const conjId = ids.get(key);
      conjIds.push(conjId);
      conjunctions.push({
        conjId,
        direction: r.direction,
        table,
        priority,
        actionPriority,
        action: r.action as PolicyAction,
        ...(r.rule.enableLogging ? { log: true } : {}),
        ...(r.action === 'Pass'
          ? {
              passTo: baseline
                ? r.direction === 'In'
                  ? 'IngressMetric'
                  : 'EgressMetric'
                : tableOf(r.direction, 'k8s'),
            }
          : {}),
        peer: everything
          ? undefined
          : [
              ...cidrs.map((c): MatchSpec => ({ ip: true, [peerField]: c })),
              ...serviceGroupMatches(part.serviceGroupIds),
            ],
        appliedTo: appliedToClause(r, part.ofports),
        services: serviceClause(part.services),
      });
    }
    realized.push({ rule: r, conjIds });
  }
  ids.retain(live);
  return {
    conjunctions,
    isolation: { ingress: [...isoIn], egress: [...isoOut] },
    realized,
  };
}
