import type { Egress, GroupMember } from '@antrea-ts/apis';
import { compileSelector, parseIPGo, type Selector } from '@antrea-ts/apis';
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import type { Span } from '../types.js';

/**
 * An Egress's Pods (Antrea's controlplane EgressGroup, named after the Egress), per Node: each
 * agent gets the members on its own Node, which it SNATs or tunnels to the Egress Node. Unlike an
 * AppliedToGroup member, an EgressGroup member carries the Pod's IPs: the agent matches them.
 */
export interface InternalEgressGroup {
  readonly name: string;
  readonly uid: string;
  readonly membersByNode: ReadonlyMap<string, readonly GroupMember[]>;
  readonly span: Span;
}

/** A Pod that can be SNATed: scheduled, with an IP, not on the host network, not finished. */
function egressMember(pod: V1Pod): { node: string; member: GroupMember } | undefined {
  const node = pod.spec?.nodeName;
  const phase = pod.status?.phase;
  if (!node || pod.spec?.hostNetwork || phase === 'Succeeded' || phase === 'Failed') return undefined;
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => !!ip);
  if (ips.length === 0 && pod.status?.podIP) ips.push(pod.status.podIP);
  if (ips.length === 0) return undefined;
  const bytes = ips.map((ip) => parseIPGo(ip)).filter((b) => b !== undefined);
  return {
    node,
    member: {
      pod: { name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '' },
      ips: bytes,
    },
  };
}

/**
 * Members of an Egress: Pods its podSelector selects in the Namespaces its namespaceSelector
 * selects; a missing selector does not restrict (Egress is cluster-scoped), both missing select
 * nothing. Throws LabelSelectorError on a selector kube-apiserver let through but that does not
 * compile.
 */
export function computeEgressGroup(
  egress: Egress,
  pods: Iterable<V1Pod>,
  namespaces: ReadonlyMap<string, V1Namespace>,
): InternalEgressGroup {
  const { podSelector, namespaceSelector } = egress.spec.appliedTo ?? {};
  const byNode = new Map<string, GroupMember[]>();
  if (podSelector || namespaceSelector) {
    const podSel: Selector | undefined = podSelector ? compileSelector(podSelector) : undefined;
    const nsSel: Selector | undefined = namespaceSelector ? compileSelector(namespaceSelector) : undefined;
    for (const pod of pods) {
      if (podSel && !podSel.matches(pod.metadata?.labels ?? {})) continue;
      if (nsSel) {
        const ns = namespaces.get(pod.metadata?.namespace ?? '');
        if (!ns || !nsSel.matches(ns.metadata?.labels ?? {})) continue;
      }
      const m = egressMember(pod);
      if (!m) continue;
      const list = byNode.get(m.node) ?? [];
      list.push(m.member);
      byNode.set(m.node, list);
    }
  }
  for (const list of byNode.values()) list.sort(byPodName);
  return {
    name: egress.metadata.name ?? '',
    uid: egress.metadata.uid ?? '',
    membersByNode: byNode,
    span: new Set(byNode.keys()),
  };
}

function byPodName(a: GroupMember, b: GroupMember): number {
  const ka = `${a.pod?.namespace}/${a.pod?.name}`;
  const kb = `${b.pod?.namespace}/${b.pod?.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** True when the two groups would send the same members to every Node. */
export function sameEgressGroup(a: InternalEgressGroup, b: InternalEgressGroup): boolean {
  if (a.uid !== b.uid || a.membersByNode.size !== b.membersByNode.size) return false;
  for (const [node, list] of a.membersByNode) {
    const other = b.membersByNode.get(node);
    if (!other || JSON.stringify(other) !== JSON.stringify(list)) return false;
  }
  return true;
}
