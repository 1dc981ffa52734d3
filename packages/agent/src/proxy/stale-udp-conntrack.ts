import { CT_ZONE } from '@antrea-ts/apis';
import type { ServiceEndpoint } from '../openflow/features/service.js';
import type { VswitchdAppctl } from '../ovs/vswitchd-appctl.js';

/**
 * UDP "connections" to a Service whose conntrack entries must go (Antrea's CleanupStaleUDPSvcConntrack):
 * UDP has no end, so a client that keeps sending from one socket keeps its entry, and with it the
 * DNAT to the endpoint chosen first, for as long as it talks, even after that endpoint left the
 * Service. Deleting the entry makes the next datagram a new connection that the group load-balances.
 */
export interface StaleUdpFlow {
  /** The address the client sent to (ClusterIP or external IP) and the Service port. */
  readonly vip: string;
  readonly port: number;
  /** Only the connections DNATed to this endpoint; none: every connection to vip:port. */
  readonly endpoint?: ServiceEndpoint;
}

/** Deletes the conntrack entries of stale UDP flows. */
export interface StaleUdpConntrack {
  flush(flows: readonly StaleUdpFlow[]): Promise<void>;
}

/** The ovs-appctl arguments that delete one stale flow's entries in `zone`. */
export function flushConntrackArgs(flow: StaleUdpFlow, zone: number): string[] {
  // The userspace tracker matches on the original (pre-NAT) tuple: client -> VIP:port. The
  // endpoint is the source of the reply tuple. Partial tuples match every entry with those fields.
  const orig = `ct_nw_dst=${flow.vip},ct_nw_proto=17,ct_tp_dst=${flow.port}`;
  const reply = flow.endpoint && `ct_nw_src=${flow.endpoint.ip},ct_tp_src=${flow.endpoint.port}`;
  return ['dpctl/flush-conntrack', `zone=${zone}`, orig, ...(reply ? [reply] : [])];
}

/**
 * The Node's ovs-vswitchd conntrack (`dpctl/flush-conntrack` with a 5-tuple filter, OVS >= 3.0
 * accepts partial tuples). `zone` is where Service connections are DNATed (Antrea's CtZone 65520).
 */
export function ovsStaleUdpConntrack(appctl: VswitchdAppctl, zone = CT_ZONE): StaleUdpConntrack {
  return {
    async flush(flows) {
      for (const flow of flows) await appctl(flushConntrackArgs(flow, zone));
    },
  };
}

/** Where a UDP service port's connections arrive (ClusterIP, external IPs: the service port; NodePort: its port). */
export interface UdpTarget {
  readonly vip: string;
  readonly port: number;
}

/** A UDP service port as last written: where connections arrive, and the endpoints they may be DNATed to. */
export interface UdpPortState {
  readonly targets: readonly UdpTarget[];
  readonly endpoints: readonly ServiceEndpoint[];
}

const endpointKey = (e: ServiceEndpoint): string => `${e.ip}:${e.port}`;
const targetKey = (t: UdpTarget): string => `${t.vip}:${t.port}`;

/**
 * What went stale between two versions of one UDP service port: every connection to a target it no
 * longer answers on, and on the targets it keeps, the connections to endpoints it lost. `after`
 * undefined: the port is gone.
 */
export function staleUdpFlows(before: UdpPortState, after: UdpPortState | undefined): StaleUdpFlow[] {
  const kept = new Set((after?.targets ?? []).map(targetKey));
  const remaining = new Set((after?.endpoints ?? []).map(endpointKey));
  const lost = before.endpoints.filter((e) => !remaining.has(endpointKey(e)));
  return before.targets.flatMap((t): StaleUdpFlow[] =>
    kept.has(targetKey(t))
      ? lost.map((endpoint) => ({ vip: t.vip, port: t.port, endpoint }))
      : [{ vip: t.vip, port: t.port }],
  );
}
