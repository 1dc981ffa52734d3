import {
  type AddressGroup,
  type AppliedToGroup,
  type GroupMember,
  groupMemberKey,
  type NetworkPolicy,
  type NetworkPolicyRule,
  type RuleAction,
  type Service,
} from '@antrea-ts/apis';

/** A local Pod as the policy code needs it (from the interface store). */
export interface LocalPod {
  readonly namespace: string;
  readonly name: string;
  readonly ofport: number;
  readonly ip: string;
}

/** A local Pod a rule applies to, with the named ports the controller sent for it. */
export interface AppliedPod {
  readonly pod: LocalPod;
  readonly member: GroupMember;
}

/**
 * One rule of one policy, joined with its groups for this Node: the unit the reconciler realizes
 * (Antrea's CompletedRule). Rules whose applied-to Pods are not on this Node have no Pods here.
 */
export interface CompletedRule {
  /** `<policy name>/<In|Out>/<index in policy.rules>`, stable while the policy keeps its rules. */
  readonly id: string;
  readonly policy: NetworkPolicy;
  readonly rule: NetworkPolicyRule;
  readonly index: number;
  readonly direction: 'In' | 'Out';
  readonly action: RuleAction;
  /** K8s NetworkPolicy rules are allow rules plus isolation; the rest are Antrea-native. */
  readonly k8s: boolean;
  /** The peer side (from for ingress, to for egress): ipBlocks, members of AddressGroups. */
  readonly peer: {
    readonly ipBlocks: NonNullable<NetworkPolicyRule['from']>['ipBlocks'];
    readonly members: readonly GroupMember[];
    /** FQDN patterns (egress only); their addresses come from the agent's DNS cache. */
    readonly fqdns: readonly string[];
    /**
     * Services as `<namespace>/<name>` (egress only): packets AntreaProxy sent through one of
     * their ports' select groups (ServiceGroupID), whose ids come from the proxier.
     */
    readonly toServices: readonly string[];
    /** No peer at all: a K8s isolation-only rule, which selects no traffic. */
    readonly none: boolean;
  };
  readonly appliedTo: readonly AppliedPod[];
  /** Nodes the rule applies to (NodeNetworkPolicy: appliedTo nodeSelector), sorted. */
  readonly appliedToNodes: readonly string[];
  readonly services: readonly Service[];
}

type Members = Map<string, GroupMember>;

/**
 * Policies and groups as the controller sent them for this Node, plus the local Pods, joined into
 * rules (Antrea pkg/agent/controller/networkpolicy/cache.go). Pure data: the watch feeds it, the
 * reconciler reads `rules()`.
 */
export class RuleCache {
  private policies = new Map<string, NetworkPolicy>();
  private appliedToGroups = new Map<string, Members>();
  private addressGroups = new Map<string, Members>();
  private pods = new Map<string, LocalPod>();

  /** The initial state of one resource, as received up to the BOOKMARK (stale objects go). */
  replacePolicies(items: readonly NetworkPolicy[]): void {
    this.policies = new Map(items.map((p) => [p.metadata.name, p]));
  }

  replaceGroups(
    kind: 'appliedtogroups' | 'addressgroups',
    items: readonly (AppliedToGroup | AddressGroup)[],
  ): void {
    const next = new Map<string, Members>();
    for (const g of items) next.set(g.metadata.name, membersOf(g.groupMembers));
    if (kind === 'appliedtogroups') this.appliedToGroups = next;
    else this.addressGroups = next;
  }

  upsertPolicy(p: NetworkPolicy): void {
    this.policies.set(p.metadata.name, p);
  }

  deletePolicy(name: string): void {
    this.policies.delete(name);
  }

  upsertGroup(kind: 'appliedtogroups' | 'addressgroups', g: AppliedToGroup | AddressGroup): void {
    this.groups(kind).set(g.metadata.name, membersOf(g.groupMembers));
  }

  patchGroup(
    kind: 'appliedtogroups' | 'addressgroups',
    name: string,
    added: readonly GroupMember[] = [],
    removed: readonly GroupMember[] = [],
  ): void {
    const groups = this.groups(kind);
    const g = groups.get(name) ?? new Map<string, GroupMember>();
    for (const m of removed) g.delete(groupMemberKey(m));
    for (const m of added) g.set(groupMemberKey(m), m);
    groups.set(name, g);
  }

  deleteGroup(kind: 'appliedtogroups' | 'addressgroups', name: string): void {
    this.groups(kind).delete(name);
  }

  setPods(pods: readonly LocalPod[]): void {
    this.pods = new Map(pods.map((p) => [`${p.namespace}/${p.name}`, p]));
  }

  policy(name: string): NetworkPolicy | undefined {
    return this.policies.get(name);
  }

  policyNames(): string[] {
    return [...this.policies.keys()];
  }

  /** The groups of one kind as received, sorted by name (agent API, support bundles). */
  groupList(kind: 'appliedtogroups' | 'addressgroups'): { name: string; members: GroupMember[] }[] {
    return [...this.groups(kind)]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, members]) => ({ name, members: [...members.values()] }));
  }

  /** Every rule of every policy, joined with groups and local Pods, in a stable order. */
  rules(): CompletedRule[] {
    const out: CompletedRule[] = [];
    const names = [...this.policies.keys()].sort();
    for (const name of names) {
      const policy = this.policies.get(name)!;
      const k8s = policy.sourceRef?.type === 'K8sNetworkPolicy' || policy.tierPriority === undefined;
      (policy.rules ?? []).forEach((rule, index) => {
        const atgs = rule.appliedToGroups?.length ? rule.appliedToGroups : (policy.appliedToGroups ?? []);
        const peerSpec = rule.direction === 'In' ? rule.from : rule.to;
        const members = new Map<string, GroupMember>();
        for (const ag of peerSpec?.addressGroups ?? []) {
          for (const [k, m] of this.addressGroups.get(ag) ?? []) members.set(k, m);
        }
        const applied = new Map<string, AppliedPod>();
        const nodes = new Set<string>();
        for (const atg of atgs) {
          for (const m of this.appliedToGroups.get(atg)?.values() ?? []) {
            if (m.node) nodes.add(m.node.name);
            if (!m.pod) continue;
            const key = `${m.pod.namespace}/${m.pod.name}`;
            const pod = this.pods.get(key);
            if (pod && pod.ofport > 0) applied.set(key, { pod, member: m });
          }
        }
        out.push({
          id: `${name}/${rule.direction}/${index}`,
          policy,
          rule,
          index,
          direction: rule.direction,
          action: rule.action ?? 'Allow',
          k8s,
          peer: {
            ipBlocks: peerSpec?.ipBlocks ?? [],
            members: [...members.values()],
            fqdns: rule.direction === 'Out' ? (peerSpec?.fqdns ?? []) : [],
            toServices:
              rule.direction === 'Out'
                ? [...new Set((peerSpec?.toServices ?? []).map((s) => `${s.namespace}/${s.name}`))].sort()
                : [],
            none:
              !peerSpec ||
              ((peerSpec.addressGroups?.length ?? 0) === 0 &&
                (peerSpec.ipBlocks?.length ?? 0) === 0 &&
                (peerSpec.fqdns?.length ?? 0) === 0 &&
                (peerSpec.toServices?.length ?? 0) === 0),
          },
          appliedTo: [...applied.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, v]) => v),
          appliedToNodes: [...nodes].sort(),
          services: rule.services ?? [],
        });
      });
    }
    return out;
  }

  private groups(kind: 'appliedtogroups' | 'addressgroups'): Map<string, Members> {
    return kind === 'appliedtogroups' ? this.appliedToGroups : this.addressGroups;
  }
}

function membersOf(list: readonly GroupMember[] | undefined): Members {
  const m = new Map<string, GroupMember>();
  for (const g of list ?? []) m.set(groupMemberKey(g), g);
  return m;
}
