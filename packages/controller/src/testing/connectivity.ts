// A connectivity oracle over the controller's computed objects: given the internal NetworkPolicies,
// AppliedToGroups and AddressGroups, decides whether a connection from one Pod to another is
// allowed, the way Antrea's datapath orders and applies rules. Test support only: it checks that
// what the controller computes means what the policies say.
import {
  formatIP,
  type GroupMember,
  type IPBlock,
  ipNetContains,
  type NetworkPolicyRule,
  parseCIDR,
} from '@antrea-ts/apis';
import type { Store } from '../store/ram-store.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';

export interface Endpoint {
  namespace: string;
  name: string;
  ip: string;
  ports: { name?: string; port: number; protocol: string }[];
}

export type Verdict = 'allow' | 'drop' | 'reject';

interface World {
  networkPolicies: Store<InternalNetworkPolicy>;
  appliedToGroups: Store<InternalAppliedToGroup>;
  addressGroups: Store<InternalAddressGroup>;
}

function podIn(members: readonly GroupMember[] | undefined, ep: Endpoint): boolean {
  return !!members?.some((m) => m.pod?.namespace === ep.namespace && m.pod.name === ep.name);
}

function inIPBlock(b: IPBlock, ip: string): boolean {
  const host = parseCIDR(`${ip}/${ip.includes(':') ? 128 : 32}`, { goBytes: true })!;
  // Compare in the 4-byte form for IPv4 (the block may use the Go 16-byte form).
  const norm = (n: { ip: Uint8Array; prefixLength: number }) =>
    parseCIDR(`${formatIP(n.ip)}/${n.prefixLength}`)!;
  if (!ipNetContains(norm(b.cidr), norm(host))) return false;
  return !(b.except ?? []).some((e) => ipNetContains(norm(e), norm(host)));
}

export class ConnectivityOracle {
  constructor(private readonly w: World) {}

  private appliesTo(np: InternalNetworkPolicy, rule: NetworkPolicyRule, ep: Endpoint): boolean {
    const groups = rule.appliedToGroups ?? np.appliedToGroups;
    return groups.some((g) => {
      const atg = this.w.appliedToGroups.get(g)?.object;
      if (!atg) return false;
      for (const list of atg.membersByNode.values()) if (podIn(list, ep)) return true;
      return false;
    });
  }

  private peerMatches(rule: NetworkPolicyRule, peer: Endpoint): boolean {
    const p = rule.direction === 'In' ? rule.from : rule.to;
    if (!p) return false;
    if (p.ipBlocks?.some((b) => inIPBlock(b, peer.ip))) return true;
    return !!p.addressGroups?.some((g) => podIn(this.w.addressGroups.get(g)?.object.members, peer));
  }

  /** `server` is the destination Pod: named ports resolve against its container ports. */
  private serviceMatches(rule: NetworkPolicyRule, server: Endpoint, port: number, protocol: string): boolean {
    if (!rule.services || rule.services.length === 0) return true;
    return rule.services.some((s) => {
      if ((s.protocol ?? 'TCP') !== protocol) return false;
      if (s.port === undefined) return true;
      if (typeof s.port === 'string')
        return server.ports.some((p) => p.name === s.port && p.protocol === protocol && p.port === port);
      return port >= s.port && port <= (s.endPort ?? s.port);
    });
  }

  /**
   * One direction: `local` is the Pod the rules apply to, `remote` the other end. Antrea-native
   * rules by tier, policy priority and rule order, first match wins (Pass falls through to K8s);
   * then K8s NetworkPolicies (isolation: allowed only if some rule matches); then the baseline tier.
   */
  private direction(
    dir: 'In' | 'Out',
    local: Endpoint,
    remote: Endpoint,
    server: Endpoint,
    port: number,
    protocol: string,
  ): Verdict {
    const nps = this.w.networkPolicies.list().items.map((i) => i.object);
    const native = nps
      .filter((p) => p.tierPriority !== undefined)
      .sort((a, b) => a.tierPriority! - b.tierPriority! || a.priority! - b.priority!);
    const matchNative = (list: InternalNetworkPolicy[]): Verdict | 'pass' | undefined => {
      for (const np of list)
        for (const r of np.rules) {
          if (r.direction !== dir || !this.appliesTo(np, r, local)) continue;
          if (!this.peerMatches(r, remote) || !this.serviceMatches(r, server, port, protocol)) continue;
          switch (r.action) {
            case 'Drop':
              return 'drop';
            case 'Reject':
              return 'reject';
            case 'Pass':
              return 'pass';
            default:
              return 'allow';
          }
        }
      return undefined;
    };
    const BASELINE = 253;
    const first = matchNative(native.filter((p) => p.tierPriority! < BASELINE));
    if (first && first !== 'pass') return first;
    let isolated = false;
    for (const np of nps.filter((p) => p.tierPriority === undefined)) {
      for (const r of np.rules) {
        if (r.direction !== dir || !this.appliesTo(np, r, local)) continue;
        isolated = true;
        if (r.action && this.peerMatches(r, remote) && this.serviceMatches(r, server, port, protocol))
          return 'allow';
      }
    }
    if (isolated) return 'drop';
    const base = matchNative(native.filter((p) => p.tierPriority! >= BASELINE));
    return base === 'drop' || base === 'reject' ? base : 'allow';
  }

  verdict(src: Endpoint, dst: Endpoint, port: number, protocol: string): Verdict {
    const out = this.direction('Out', src, dst, dst, port, protocol);
    if (out !== 'allow') return out;
    return this.direction('In', dst, src, dst, port, protocol);
  }
}
