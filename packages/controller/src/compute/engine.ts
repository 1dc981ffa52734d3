import type {
  AdminNetworkPolicy,
  BaselineAdminNetworkPolicy,
  GroupMember,
  IPBlock,
  NamedPort,
  Protocol,
  ServiceReference,
} from '@antrea-ts/apis';
import { type Labels, parseCIDR, parseIPGo, type Selector, SelectorCache } from '@antrea-ts/apis';
import type { V1Namespace, V1NetworkPolicy, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  translateAdminNetworkPolicy,
  translateBaselineAdminNetworkPolicy,
} from '../admin-policy/translate.js';
import {
  GroupingIndex,
  POD_IPS_CHANGED,
  POD_NODE_CHANGED,
  type PodEntity,
  type PodState,
  podKey,
  type SelectorItem,
} from '../grouping/grouping-index.js';
import type {
  CrdClusterNetworkPolicy,
  CrdExternalEntity,
  CrdGroup,
  CrdNetworkPolicy,
  CrdTier,
} from '../inputs.js';
import { type GroupSelector, newGroupSelector } from '../labels/group-selector.js';
import { addTo } from '../multimap.js';
import { compactMap } from '../small-map.js';
import { SmallSet } from '../small-set.js';
import { STATIC_TIERS, tierObjectName } from '../tiers.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy, Span } from '../types.js';
import { deepEqual, EMPTY_SPAN, sameMembers, sameMembersByNode, sameSpan } from './equality.js';
import { externalEntityPorts, externalEntityState } from './external-entity.js';
import { type MemberPayload, memberPayload } from './member-payload.js';
import {
  DEFAULT_TIER_PRIORITY,
  ENABLE_NP_LOGGING_ANNOTATION,
  type GroupRequest,
  type InternalGroupInfo,
  type PolicyTranslation,
  SERVICE_ACCOUNT_LABEL,
  type TranslationContext,
  translateAntreaNetworkPolicy,
  translateClusterNetworkPolicy,
  translateK8sNetworkPolicy,
} from './translate.js';

/** Where the engine writes its results (the RAM stores implement it). */
export interface Writable<T> {
  put(obj: T): void;
  delete(name: string): void;
}

export interface EngineOutput {
  networkPolicies: Writable<InternalNetworkPolicy>;
  appliedToGroups: Writable<InternalAppliedToGroup>;
  addressGroups: Writable<InternalAddressGroup>;
}

export interface FlushStats {
  translatedPolicies: number;
  syncedAppliedToGroups: number;
  syncedPolicies: number;
  syncedAddressGroups: number;
  deletedGroups: number;
  /** Milliseconds spent syncing each kind in this flush, when the engine has a phaseClock (else 0). */
  appliedToGroupSyncMs: number;
  networkPolicySyncMs: number;
  addressGroupSyncMs: number;
}

/** Objects marked for the next flush, by the queue Antrea would hold them in (its length_*_queue gauges). */
export interface QueueLengths {
  networkPolicies: number;
  appliedToGroups: number;
  addressGroups: number;
}

export interface EngineCounts {
  pods: number;
  externalEntities: number;
  labelSets: number;
  selectors: number;
  networkPolicies: number;
  appliedToGroups: number;
  addressGroups: number;
  internalGroups: number;
}

type SourceKind =
  | 'K8sNetworkPolicy'
  | 'AntreaClusterNetworkPolicy'
  | 'AntreaNetworkPolicy'
  | 'AdminNetworkPolicy'
  | 'BaselineAdminNetworkPolicy';

/** What a translation looked at; `groups` stays undefined for the many policies that use none. */
interface Deps {
  tier: string | undefined;
  groups: Set<string> | undefined;
  namespaces: boolean;
}

const NO_DEPS: Deps = Object.freeze({ tier: undefined, groups: undefined, namespaces: false }) as Deps;

interface PolicyState {
  readonly key: string;
  readonly kind: SourceKind;
  source:
    | V1NetworkPolicy
    | CrdClusterNetworkPolicy
    | CrdNetworkPolicy
    | AdminNetworkPolicy
    | BaselineAdminNetworkPolicy;
  /** The translated policy without span (group requests are dropped once the groups exist). */
  translated: PolicyTranslation['policy'] | undefined;
  atgs: ATGState[];
  ags: AGState[];
  stored: InternalNetworkPolicy | undefined;
  /** Dependencies recorded during the last translation. */
  deps: Deps;
}

interface ATGState {
  readonly name: string;
  readonly req: GroupRequest;
  readonly selectorItem: SelectorItem<MemberPayload> | undefined;
  readonly nodeSelector: Selector | undefined;
  readonly policies: SmallSet<PolicyState>;
  stored: InternalAppliedToGroup | undefined;
}

interface AGState {
  readonly name: string;
  readonly req: GroupRequest;
  readonly selectorItem: SelectorItem<MemberPayload> | undefined;
  readonly nodeSelector: Selector | undefined;
  readonly policies: SmallSet<PolicyState>;
  membersDirty: boolean;
  stored: InternalAddressGroup | undefined;
}

interface IGroupState {
  readonly key: string;
  readonly namespace: string;
  source: CrdGroup;
  uid: string;
  ipBlocks: IPBlock[];
  childGroups: string[];
  serviceRef: ServiceReference | undefined;
  /** Pod selector (from the spec, or from the referenced Service's selector). */
  selector: GroupSelector | undefined;
  selectorItem: SelectorItem<MemberPayload> | undefined;
  nodeSelector: Selector | undefined;
}

interface NodeState {
  labels: Labels;
  member: GroupMember;
}

const MAX_GROUP_NESTING = 2;
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

type GroupUser = ATGState | AGState | IGroupState;

/** Which of a group key's derived groups to rebuild (bit flags). */
const ATG_MEMBERS = 1;
const AG_MEMBERS = 2;
const ALL_MEMBERS = ATG_MEMBERS | AG_MEMBERS;

function podState(pod: V1Pod): PodState {
  // Copied key by key: an object spread at a megamorphic site gives every copy its own hidden
  // class, which costs ~200 bytes per Pod and defeats inline caches.
  const labels: Record<string, string> = {};
  const src = pod.metadata?.labels;
  if (src) for (const k in src) labels[k] = src[k]!;
  // Antrea adds the ServiceAccount as a label so that serviceAccount peers are plain selectors.
  labels[SERVICE_ACCOUNT_LABEL] = pod.spec?.serviceAccountName ?? '';
  const phase = pod.status?.phase;
  const ips = pod.status?.podIPs?.map((p) => p.ip) ?? (pod.status?.podIP ? [pod.status.podIP] : []);
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    labels,
    nodeName: pod.spec?.nodeName ?? '',
    ips,
    hostNetwork: pod.spec?.hostNetwork ?? false,
    terminated: phase === 'Succeeded' || phase === 'Failed',
  };
}

function namedPorts(pod: V1Pod): NamedPort[] | undefined {
  let out: NamedPort[] | undefined;
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if (!p.name) continue;
      if (!out) out = [];
      out.push({ port: p.containerPort, name: p.name, protocol: (p.protocol ?? 'TCP') as Protocol });
    }
  }
  return out;
}

function nodeIPs(node: V1Node): string[] {
  const set = new Set<string>();
  for (const a of node.status?.addresses ?? [])
    if (a.type === 'InternalIP' || a.type === 'ExternalIP') set.add(a.address);
  return [...set].sort();
}

/**
 * The compute core. Accepts object upserts/deletes (synchronous, cheap: they only update indexes
 * and mark what is affected), and `flush()` recomputes exactly the affected policies and groups
 * and writes the results to the output stores, like Antrea's workers draining their queues.
 */
export class PolicyEngine {
  private readonly log: Logger | undefined;
  private readonly index = new GroupingIndex<MemberPayload>('pod');
  /**
   * ExternalEntities, matched by the selectors that carry an externalEntitySelector. It learns the
   * Namespaces only once it is first used, so clusters without ExternalEntities pay nothing for it.
   */
  private readonly eeIndex = new GroupingIndex<MemberPayload>('externalEntity');
  private eeIndexInUse = false;
  private readonly selectorCache = new SelectorCache();
  private readonly out: EngineOutput;

  private readonly policies = new Map<string, PolicyState>();
  private readonly atgs = new Map<string, ATGState>();
  private readonly ags = new Map<string, AGState>();
  private readonly igroups = new Map<string, IGroupState>();
  private readonly nodes = new Map<string, NodeState>();
  private readonly services = new Map<string, V1Service>();
  private readonly tiers = new Map<string, number>();
  private readonly namespaceLogging = new Map<string, boolean>();

  /** Which policies consulted which Tier / internal Group, and which need the Namespace list. */
  private readonly policiesByTier = new Map<string, Set<PolicyState>>();
  private readonly policiesByGroup = new Map<string, Set<PolicyState>>();
  private readonly policiesByNamespaces = new Set<PolicyState>();
  private readonly k8sPoliciesByNamespace = new Map<string, Set<PolicyState>>();
  private readonly parentsByChild = new Map<string, Set<string>>();
  private readonly nodeSelectorATGs = new Set<ATGState>();
  private readonly nodeSelectorAGs = new Set<AGState>();
  private readonly nodeSelectorIGroups = new Set<IGroupState>();
  private readonly serviceATGs = new Set<ATGState>();

  // Work queues (sets dedupe like Antrea's workqueues).
  private readonly dirtyTranslate = new Set<PolicyState>();
  private readonly dirtyPolicySpan = new Set<PolicyState>();
  private readonly dirtyATGs = new Set<ATGState>();
  private readonly dirtyAGs = new Set<AGState>();
  /** Internal Groups whose members changed, with which derived groups to rebuild (*_MEMBERS). */
  private readonly dirtyIGroups = new Map<IGroupState, number>();
  private readonly orphanCandidates = new Set<ATGState | AGState>();
  private readonly deletedPolicies: InternalNetworkPolicy[] = [];

  constructor(out: EngineOutput, opts: { logger?: Logger; seedStaticTiers?: boolean } = {}) {
    this.out = out;
    this.log = opts.logger?.child({ component: 'policy-engine' });
    if (opts.seedStaticTiers ?? true) for (const t of STATIC_TIERS) this.tiers.set(t.name, t.priority);
  }

  counts(): EngineCounts {
    let nps = 0;
    for (const p of this.policies.values()) if (p.stored) nps++;
    return {
      pods: this.index.podCount,
      externalEntities: this.eeIndex.podCount,
      labelSets: this.index.labelItemCount + this.eeIndex.labelItemCount,
      selectors: this.index.selectorItemCount + this.eeIndex.selectorItemCount,
      networkPolicies: nps,
      appliedToGroups: this.atgs.size,
      addressGroups: this.ags.size,
      internalGroups: this.igroups.size,
    };
  }

  /** True when upserts/deletes are waiting for flush(). */
  get pending(): boolean {
    return (
      this.dirtyTranslate.size > 0 ||
      this.dirtyPolicySpan.size > 0 ||
      this.dirtyATGs.size > 0 ||
      this.dirtyAGs.size > 0 ||
      this.dirtyIGroups.size > 0 ||
      this.deletedPolicies.length > 0 ||
      this.indexDirty
    );
  }

  private indexDirty = false;
  /** Times each sync phase of a flush into FlushStats when set (metrics); unset, nothing is timed. */
  phaseClock: (() => number) | undefined;

  /**
   * Objects marked for the next flush. Pod and Namespace changes reach groups only when the flush
   * starts (the index is drained then), so until then they show in `pending`, not here.
   */
  queueLengths(): QueueLengths {
    let policies = this.dirtyTranslate.size;
    for (const p of this.dirtyPolicySpan) if (!this.dirtyTranslate.has(p)) policies++;
    return {
      networkPolicies: policies,
      appliedToGroups: this.dirtyATGs.size,
      addressGroups: this.dirtyAGs.size,
    };
  }
  /** Policies that failed translation since start (they keep their previous version). */
  translateErrors = 0;

  // ------------------------------------------------------------------------------------------
  // Inputs

  upsertNamespace(ns: V1Namespace): void {
    const name = ns.metadata?.name ?? '';
    const prevLabels = this.index.namespaceLabels(name);
    const labels = ns.metadata?.labels ?? {};
    this.index.upsertNamespace(name, labels);
    if (this.eeIndexInUse) this.eeIndex.upsertNamespace(name, labels);
    this.indexDirty = true;
    if (!prevLabels || !sameLabels(prevLabels, labels))
      for (const p of this.policiesByNamespaces) this.dirtyTranslate.add(p);
    // strconv.ParseBool semantics; an invalid value leaves logging off, as in Antrea.
    const logging = GO_TRUE.has(ns.metadata?.annotations?.[ENABLE_NP_LOGGING_ANNOTATION] ?? '');
    if ((this.namespaceLogging.get(name) ?? false) !== logging) {
      this.namespaceLogging.set(name, logging);
      for (const p of this.k8sPoliciesByNamespace.get(name) ?? []) this.dirtyTranslate.add(p);
    }
  }

  deleteNamespace(name: string): void {
    this.index.deleteNamespace(name);
    if (this.eeIndexInUse) this.eeIndex.deleteNamespace(name);
    this.indexDirty = true;
    this.namespaceLogging.delete(name);
    for (const p of this.policiesByNamespaces) this.dirtyTranslate.add(p);
  }

  upsertPod(pod: V1Pod): void {
    const state = podState(pod);
    const ports = namedPorts(pod);
    this.index.upsertPod(state, (st, prev) => memberPayload('pod', st, ports, prev));
    this.indexDirty = true;
  }

  deletePod(namespace: string, name: string): void {
    this.index.deletePod(namespace, name);
    this.indexDirty = true;
  }

  upsertExternalEntity(ee: CrdExternalEntity): void {
    const ports = externalEntityPorts(ee);
    this.useEEIndex().upsertPod(externalEntityState(ee), (st, prev) =>
      memberPayload('externalEntity', st, ports, prev),
    );
    this.indexDirty = true;
  }

  deleteExternalEntity(namespace: string, name: string): void {
    this.eeIndex.deletePod(namespace, name);
    this.indexDirty = true;
  }

  upsertNode(node: V1Node): void {
    const name = node.metadata?.name ?? '';
    const ips = nodeIPs(node);
    const prev = this.nodes.get(name);
    const labels = node.metadata?.labels ?? {};
    const prevIPs = prev?.member.ips?.length ?? 0;
    if (prev && sameLabels(prev.labels, labels) && prevIPs === ips.length) {
      const same = ips.every((ip, i) => deepEqual(parseIPGo(ip), prev.member.ips?.[i]));
      if (same) return;
    }
    this.nodes.set(name, {
      labels,
      member: { node: { name }, ips: ips.map((ip) => parseIPGo(ip) ?? new Uint8Array()) },
    });
    this.markNodeGroupsDirty(!prev);
  }

  deleteNode(name: string): void {
    if (!this.nodes.delete(name)) return;
    this.markNodeGroupsDirty(true);
  }

  private markNodeGroupsDirty(nodeSetChanged: boolean): void {
    for (const g of this.nodeSelectorATGs) this.dirtyATGs.add(g);
    for (const g of this.nodeSelectorAGs) this.markAGMembersDirty(g);
    for (const ig of this.nodeSelectorIGroups) this.markIGroupDirty(ig, ALL_MEMBERS);
    // NodePort Service appliedTo groups span every Node.
    if (nodeSetChanged) for (const g of this.serviceATGs) this.dirtyATGs.add(g);
  }

  upsertService(svc: V1Service): void {
    const key = `${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}`;
    this.services.set(key, svc);
    this.refreshServiceGroups(key);
  }

  deleteService(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    this.services.delete(key);
    this.refreshServiceGroups(key);
  }

  private refreshServiceGroups(key: string): void {
    for (const ig of this.igroups.values()) {
      if (ig.serviceRef && `${ig.serviceRef.namespace}/${ig.serviceRef.name}` === key)
        this.resolveIGroupSelector(ig);
    }
  }

  upsertTier(tier: CrdTier): void {
    const name = tier.metadata.name ?? '';
    if (this.tiers.get(name) === tier.spec.priority) return;
    this.tiers.set(name, tier.spec.priority);
    for (const p of this.policiesByTier.get(name) ?? []) this.dirtyTranslate.add(p);
  }

  deleteTier(name: string): void {
    if (!this.tiers.delete(name)) return;
    for (const p of this.policiesByTier.get(name) ?? []) this.dirtyTranslate.add(p);
  }

  upsertK8sNetworkPolicy(np: V1NetworkPolicy): void {
    this.upsertPolicy('K8sNetworkPolicy', podKey(np.metadata?.namespace ?? '', np.metadata?.name ?? ''), np);
  }

  deleteK8sNetworkPolicy(namespace: string, name: string): void {
    this.deletePolicy('K8sNetworkPolicy', podKey(namespace, name));
  }

  upsertClusterNetworkPolicy(cnp: CrdClusterNetworkPolicy): void {
    this.upsertPolicy('AntreaClusterNetworkPolicy', cnp.metadata.name ?? '', cnp);
  }

  deleteClusterNetworkPolicy(name: string): void {
    this.deletePolicy('AntreaClusterNetworkPolicy', name);
  }

  upsertAntreaNetworkPolicy(np: CrdNetworkPolicy): void {
    this.upsertPolicy('AntreaNetworkPolicy', podKey(np.metadata.namespace ?? '', np.metadata.name ?? ''), np);
  }

  deleteAntreaNetworkPolicy(namespace: string, name: string): void {
    this.deletePolicy('AntreaNetworkPolicy', podKey(namespace, name));
  }

  upsertAdminNetworkPolicy(anp: AdminNetworkPolicy): void {
    this.upsertPolicy('AdminNetworkPolicy', anp.metadata.name ?? '', anp);
  }

  deleteAdminNetworkPolicy(name: string): void {
    this.deletePolicy('AdminNetworkPolicy', name);
  }

  upsertBaselineAdminNetworkPolicy(banp: BaselineAdminNetworkPolicy): void {
    this.upsertPolicy('BaselineAdminNetworkPolicy', banp.metadata.name ?? '', banp);
  }

  deleteBaselineAdminNetworkPolicy(name: string): void {
    this.deletePolicy('BaselineAdminNetworkPolicy', name);
  }

  upsertClusterGroup(cg: CrdGroup): void {
    this.upsertIGroup(cg.metadata.name ?? '', '', cg);
  }

  deleteClusterGroup(name: string): void {
    this.deleteIGroup(name);
  }

  upsertGroup(g: CrdGroup): void {
    const ns = g.metadata.namespace ?? '';
    this.upsertIGroup(`${ns}/${g.metadata.name ?? ''}`, ns, g);
  }

  deleteGroup(namespace: string, name: string): void {
    this.deleteIGroup(`${namespace}/${name}`);
  }

  // ------------------------------------------------------------------------------------------
  // Policies

  private upsertPolicy(kind: SourceKind, name: string, source: PolicyState['source']): void {
    const key = [kind, name].join(':');
    let p = this.policies.get(key);
    if (!p) {
      p = {
        key,
        kind,
        source,
        translated: undefined,
        atgs: [],
        ags: [],
        stored: undefined,
        deps: NO_DEPS,
      };
      this.policies.set(key, p);
      if (kind === 'K8sNetworkPolicy') {
        const ns = (source as V1NetworkPolicy).metadata?.namespace ?? '';
        addTo(this.k8sPoliciesByNamespace, ns, p);
      }
    } else {
      p.source = source;
    }
    this.dirtyTranslate.add(p);
  }

  private deletePolicy(kind: SourceKind, name: string): void {
    const key = [kind, name].join(':');
    const p = this.policies.get(key);
    if (!p) return;
    this.policies.delete(key);
    this.dirtyTranslate.delete(p);
    this.dirtyPolicySpan.delete(p);
    if (kind === 'K8sNetworkPolicy') {
      const ns = (p.source as V1NetworkPolicy).metadata?.namespace ?? '';
      const set = this.k8sPoliciesByNamespace.get(ns);
      if (set?.delete(p) && set.size === 0) this.k8sPoliciesByNamespace.delete(ns);
    }
    this.setDeps(p, NO_DEPS);
    this.setGroups(p, [], []);
    if (p.stored) this.deletedPolicies.push(p.stored);
    p.stored = undefined;
  }

  private setDeps(p: PolicyState, deps: PolicyState['deps']): void {
    const old = p.deps;
    if (old.tier !== undefined && old.tier !== deps.tier) this.policiesByTier.get(old.tier)?.delete(p);
    if (deps.tier !== undefined) {
      addTo(this.policiesByTier, deps.tier, p);
    }
    for (const g of old.groups ?? []) {
      if (deps.groups?.has(g)) continue;
      const set = this.policiesByGroup.get(g);
      if (set?.delete(p) && set.size === 0) this.policiesByGroup.delete(g);
    }
    for (const g of deps.groups ?? []) {
      addTo(this.policiesByGroup, g, p);
    }
    if (deps.namespaces) this.policiesByNamespaces.add(p);
    else this.policiesByNamespaces.delete(p);
    p.deps = deps;
  }

  private translationContext(deps: Deps): TranslationContext {
    const selectorCache = this.selectorCache;
    const addGroup = (key: string) => {
      if (!deps.groups) deps.groups = new Set();
      deps.groups.add(key);
    };
    return {
      selectorCache,
      tierPriority: (tier) => {
        if (!tier) return DEFAULT_TIER_PRIORITY;
        const name = tierObjectName(tier);
        deps.tier = name;
        // An unknown Tier is refused by validation; should one slip through, Antrea falls back
        // to the default Tier's priority.
        return this.tiers.get(name) ?? DEFAULT_TIER_PRIORITY;
      },
      internalGroup: (key) => {
        addGroup(key);
        const ig = this.igroups.get(key);
        if (!ig) return undefined;
        // The Group's rule view depends on its children too.
        for (const c of ig.childGroups) addGroup(childKey(ig, c));
        return this.groupInfo(ig);
      },
      namespaces: () => {
        deps.namespaces = true;
        return this.index.listNamespaces();
      },
      namespaceLabels: (name) => {
        deps.namespaces = true;
        return this.index.namespaceLabels(name);
      },
      namespaceLoggingEnabled: (ns) => this.namespaceLogging.get(ns) ?? false,
    };
  }

  private groupInfo(ig: IGroupState): InternalGroupInfo {
    const forRule = this.groupForRule(ig, 1);
    return {
      uid: ig.uid,
      spec: ig.source.spec,
      hasIPBlocks: ig.ipBlocks.length > 0,
      createAddressGroup: forRule.create,
      ruleIPBlocks: forRule.ipBlocks,
    };
  }

  /** processInternalGroupForRule: nesting deeper than one level contributes nothing. */
  private groupForRule(ig: IGroupState, level: number): { create: boolean; ipBlocks: IPBlock[] } {
    if (level > MAX_GROUP_NESTING) return { create: false, ipBlocks: [] };
    if (ig.ipBlocks.length > 0) return { create: false, ipBlocks: ig.ipBlocks };
    if (ig.childGroups.length === 0) return { create: true, ipBlocks: [] };
    let create = false;
    const ipBlocks: IPBlock[] = [];
    for (const c of ig.childGroups) {
      const child = this.igroups.get(childKey(ig, c));
      if (!child) continue;
      const r = this.groupForRule(child, level + 1);
      create ||= r.create;
      ipBlocks.push(...r.ipBlocks);
    }
    return { create, ipBlocks };
  }

  private translate(p: PolicyState): void {
    const deps: Deps = { tier: undefined, groups: undefined, namespaces: false };
    const ctx = this.translationContext(deps);
    let t: PolicyTranslation;
    try {
      switch (p.kind) {
        case 'K8sNetworkPolicy':
          t = translateK8sNetworkPolicy(p.source as V1NetworkPolicy, ctx);
          break;
        case 'AntreaClusterNetworkPolicy':
          t = translateClusterNetworkPolicy(p.source as CrdClusterNetworkPolicy, ctx);
          break;
        case 'AntreaNetworkPolicy':
          t = translateAntreaNetworkPolicy(p.source as CrdNetworkPolicy, ctx);
          break;
        case 'AdminNetworkPolicy':
          t = translateAdminNetworkPolicy(p.source as AdminNetworkPolicy, ctx);
          break;
        case 'BaselineAdminNetworkPolicy':
          t = translateBaselineAdminNetworkPolicy(p.source as BaselineAdminNetworkPolicy, ctx);
          break;
      }
    } catch (err) {
      // Admission refuses such objects (e.g. an unknown selector operator); should one get in, it
      // must not stop the computation of every other policy. The last good translation stays.
      this.translateErrors++;
      this.log?.error({ err, policy: p.key }, 'cannot translate policy; keeping its previous version');
      return;
    }
    this.setDeps(p, deps.tier === undefined && !deps.groups && !deps.namespaces ? NO_DEPS : deps);
    // A new UID under the same name is a different policy: retract the old internal object.
    if (p.stored && p.stored.name !== t.policy.name) {
      this.deletedPolicies.push(p.stored);
      p.stored = undefined;
    }
    p.translated = t.policy;
    const atgs: ATGState[] = [];
    for (const req of t.appliedToGroups.values()) atgs.push(this.acquireATG(req));
    const ags: AGState[] = [];
    for (const req of t.addressGroups.values()) ags.push(this.acquireAG(req));
    this.internGroupNames(t.policy);
    this.setGroups(p, atgs.slice(), ags.slice());
    this.dirtyPolicySpan.add(p);
  }

  /**
   * Points the policy's group name lists at the groups' own name strings: translation derives a
   * fresh copy of each UUID per policy, and sharing one copy saves ~56 bytes per reference.
   */
  private internGroupNames(policy: PolicyTranslation['policy']): void {
    const atgNames = policy.appliedToGroups as string[];
    for (let i = 0; i < atgNames.length; i++) atgNames[i] = this.atgs.get(atgNames[i]!)?.name ?? atgNames[i]!;
    for (const r of policy.rules) {
      const peer = r.direction === 'In' ? r.from : r.to;
      const agNames = peer?.addressGroups;
      if (agNames)
        for (let i = 0; i < agNames.length; i++) agNames[i] = this.ags.get(agNames[i]!)?.name ?? agNames[i]!;
      const ruleATGs = r.appliedToGroups;
      if (ruleATGs)
        for (let i = 0; i < ruleATGs.length; i++)
          ruleATGs[i] = this.atgs.get(ruleATGs[i]!)?.name ?? ruleATGs[i]!;
    }
  }

  /** Moves a policy's group references, marking groups whose user set changed. */
  private setGroups(p: PolicyState, atgs: ATGState[], ags: AGState[]): void {
    const newATGs = new Set(atgs);
    for (const g of p.atgs) {
      if (newATGs.has(g)) continue;
      g.policies.delete(p);
      if (g.policies.size === 0) this.orphanCandidates.add(g);
    }
    for (const g of atgs) g.policies.add(p);
    const newAGs = new Set(ags);
    for (const g of p.ags) {
      if (newAGs.has(g)) continue;
      g.policies.delete(p);
      // Its span may shrink.
      this.dirtyAGs.add(g);
      if (g.policies.size === 0) this.orphanCandidates.add(g);
    }
    const oldAGs = new Set(p.ags);
    for (const g of ags) {
      g.policies.add(p);
      if (!oldAGs.has(g)) this.dirtyAGs.add(g);
    }
    p.atgs = atgs;
    p.ags = ags;
  }

  // ------------------------------------------------------------------------------------------
  // Groups

  private users(si: SelectorItem<MemberPayload>): SmallSet<GroupUser> {
    if (!si.users) si.users = new SmallSet<GroupUser>();
    return si.users as SmallSet<GroupUser>;
  }

  private acquireSelectorFor(
    sel: GroupSelector,
    user: ATGState | AGState | IGroupState,
  ): SelectorItem<MemberPayload> {
    const si = this.indexFor(sel).acquireSelector(sel);
    this.users(si).add(user);
    this.indexDirty = true;
    return si;
  }

  private releaseSelectorFor(si: SelectorItem<MemberPayload>, user: ATGState | AGState | IGroupState): void {
    (si.users as SmallSet<GroupUser> | undefined)?.delete(user);
    this.indexFor(si.selector).releaseSelector(si);
  }

  /** The index that evaluates a selector: ExternalEntities for an externalEntitySelector, else Pods. */
  private indexFor(sel: GroupSelector): GroupingIndex<MemberPayload> {
    return this.eeIndex.holds(sel) ? this.useEEIndex() : this.index;
  }

  /** The ExternalEntity index, told every known Namespace on first use. */
  private useEEIndex(): GroupingIndex<MemberPayload> {
    if (!this.eeIndexInUse) {
      this.eeIndexInUse = true;
      for (const ns of this.index.listNamespaces()) this.eeIndex.upsertNamespace(ns.name, ns.labels);
    }
    return this.eeIndex;
  }

  private acquireATG(req: GroupRequest): ATGState {
    const existing = this.atgs.get(req.name);
    if (existing) {
      this.orphanCandidates.delete(existing);
      return existing;
    }
    let nodeSelector: Selector | undefined;
    let needsSelector: GroupSelector | undefined;
    if (req.kind === 'selector') {
      if (req.selector.nodeSelector) nodeSelector = req.selector.nodeSelector;
      else needsSelector = req.selector;
    }
    const g: ATGState = {
      name: req.name,
      req,
      selectorItem: undefined,
      nodeSelector,
      policies: new SmallSet(),
      stored: undefined,
    };
    if (needsSelector)
      (g as { selectorItem: SelectorItem<MemberPayload> }).selectorItem = this.acquireSelectorFor(
        needsSelector,
        g,
      );
    if (nodeSelector) this.nodeSelectorATGs.add(g);
    if (req.kind === 'service') this.serviceATGs.add(g);
    this.atgs.set(g.name, g);
    this.dirtyATGs.add(g);
    return g;
  }

  private acquireAG(req: GroupRequest): AGState {
    const existing = this.ags.get(req.name);
    if (existing) {
      this.orphanCandidates.delete(existing);
      return existing;
    }
    let nodeSelector: Selector | undefined;
    let needsSelector: GroupSelector | undefined;
    if (req.kind === 'selector') {
      if (req.selector.nodeSelector) nodeSelector = req.selector.nodeSelector;
      else needsSelector = req.selector;
    }
    const g: AGState = {
      name: req.name,
      req,
      selectorItem: undefined,
      nodeSelector,
      policies: new SmallSet(),
      membersDirty: true,
      stored: undefined,
    };
    if (needsSelector)
      (g as { selectorItem: SelectorItem<MemberPayload> }).selectorItem = this.acquireSelectorFor(
        needsSelector,
        g,
      );
    if (nodeSelector) this.nodeSelectorAGs.add(g);
    this.ags.set(g.name, g);
    this.dirtyAGs.add(g);
    return g;
  }

  private markAGMembersDirty(g: AGState): void {
    g.membersDirty = true;
    this.dirtyAGs.add(g);
  }

  private upsertIGroup(key: string, namespace: string, source: CrdGroup): void {
    let ig = this.igroups.get(key);
    const isNew = !ig;
    if (!ig) {
      ig = {
        key,
        namespace,
        source,
        uid: source.metadata.uid ?? '',
        ipBlocks: [],
        childGroups: [],
        serviceRef: undefined,
        selector: undefined,
        selectorItem: undefined,
        nodeSelector: undefined,
      };
      this.igroups.set(key, ig);
    }
    const prevSpec = ig.source.spec;
    ig.source = source;
    ig.uid = source.metadata.uid ?? '';
    if (!isNew && deepEqual(prevSpec, source.spec)) return;
    const spec = source.spec;
    for (const c of ig.childGroups) this.parentsByChild.get(childKey(ig, c))?.delete(key);
    ig.childGroups = [];
    ig.ipBlocks = [];
    ig.serviceRef = undefined;
    ig.nodeSelector = undefined;
    this.nodeSelectorIGroups.delete(ig);
    let selector: GroupSelector | undefined;
    // processClusterGroup / processGroup: childGroups win, then ipBlocks, then serviceReference,
    // then selectors.
    if (spec.childGroups && spec.childGroups.length > 0) {
      ig.childGroups = [...spec.childGroups];
      for (const c of ig.childGroups) {
        const ck = childKey(ig, c);
        addTo(this.parentsByChild, ck, key);
      }
    } else if (spec.ipBlocks && spec.ipBlocks.length > 0) {
      ig.ipBlocks = translateIPBlocks(spec.ipBlocks);
    } else if (spec.serviceReference) {
      ig.serviceRef = {
        name: spec.serviceReference.name ?? '',
        namespace: spec.serviceReference.namespace ?? '',
      };
    } else {
      const gs = newGroupSelector(
        namespace,
        spec.podSelector,
        spec.namespaceSelector,
        spec.externalEntitySelector,
        namespace === '' ? spec.nodeSelector : undefined,
        this.selectorCache,
      );
      if (gs.nodeSelector) {
        ig.nodeSelector = gs.nodeSelector;
        this.nodeSelectorIGroups.add(ig);
      } else selector = gs;
    }
    this.setIGroupSelector(ig, selector);
    if (ig.serviceRef) this.resolveIGroupSelector(ig);
    this.igroupSpecChanged(ig);
  }

  private deleteIGroup(key: string): void {
    const ig = this.igroups.get(key);
    if (!ig) return;
    this.igroups.delete(key);
    for (const c of ig.childGroups) this.parentsByChild.get(childKey(ig, c))?.delete(key);
    this.setIGroupSelector(ig, undefined);
    this.nodeSelectorIGroups.delete(ig);
    this.dirtyIGroups.delete(ig);
    this.igroupSpecChanged(ig);
  }

  /** Policies that looked at this Group (or at a parent of it) must be translated again. */
  private igroupSpecChanged(ig: IGroupState): void {
    const keys = [ig.key, ...(this.parentsByChild.get(ig.key) ?? [])];
    for (const k of keys) {
      for (const p of this.policiesByGroup.get(k) ?? []) this.dirtyTranslate.add(p);
      this.markGroupKeyMembersDirty(k);
    }
  }

  private markGroupKeyMembersDirty(key: string, flags = ALL_MEMBERS): void {
    if (flags & ATG_MEMBERS) {
      const atg = this.atgs.get(key);
      if (atg) this.dirtyATGs.add(atg);
    }
    if (flags & AG_MEMBERS) {
      const ag = this.ags.get(key);
      if (ag) this.markAGMembersDirty(ag);
    }
  }

  private setIGroupSelector(ig: IGroupState, selector: GroupSelector | undefined): void {
    if (ig.selector?.normalizedName === selector?.normalizedName) return;
    const old = ig.selectorItem;
    ig.selector = selector;
    ig.selectorItem = selector ? this.acquireSelectorFor(selector, ig) : undefined;
    if (old) this.releaseSelectorFor(old, ig);
    this.markIGroupDirty(ig, ALL_MEMBERS);
  }

  private markIGroupDirty(ig: IGroupState, flags: number): void {
    this.dirtyIGroups.set(ig, (this.dirtyIGroups.get(ig) ?? 0) | flags);
  }

  /** serviceReference Groups select the Pods of the Service's selector (none without one). */
  private resolveIGroupSelector(ig: IGroupState): void {
    if (!ig.serviceRef) return;
    const svc = this.services.get(`${ig.serviceRef.namespace}/${ig.serviceRef.name}`);
    const podSel = svc?.spec?.selector;
    const selector =
      svc && podSel && Object.keys(podSel).length > 0
        ? newGroupSelector(
            ig.serviceRef.namespace,
            { matchLabels: podSel },
            undefined,
            undefined,
            undefined,
            this.selectorCache,
          )
        : undefined;
    this.setIGroupSelector(ig, selector);
  }

  // ------------------------------------------------------------------------------------------
  // Queries (controlplane clustergroupmembers / groupmembers / groupassociations)

  /**
   * Effective members of a ClusterGroup (`name`) or Group (`namespace/name`): Pods with IPs (or
   * Nodes), plus the ipBlocks of ipBlock Groups; undefined when no such Group exists. Reflects the
   * last flush.
   */
  groupMembers(key: string): { members: GroupMember[]; ipBlocks: IPBlock[] } | undefined {
    const ig = this.igroups.get(key);
    if (!ig) return undefined;
    const ipBlocks: IPBlock[] = [];
    const collect = (grp: IGroupState, level: number) => {
      if (level > MAX_GROUP_NESTING) return;
      ipBlocks.push(...grp.ipBlocks);
      for (const c of grp.childGroups) {
        const child = this.igroups.get(childKey(grp, c));
        if (child) collect(child, level + 1);
      }
    };
    collect(ig, 1);
    const pseudo: AGState = {
      name: key,
      req: { kind: 'group', name: key, sourceGroup: key, uid: ig.uid },
      selectorItem: undefined,
      nodeSelector: undefined,
      policies: new SmallSet(),
      membersDirty: false,
      stored: undefined,
    };
    return { members: this.agMembers(pseudo), ipBlocks };
  }

  /** ClusterGroups and Groups (keys) whose members include the Pod, children counting for parents. */
  groupsForPod(namespace: string, name: string): string[] {
    const pod = this.index.getPod(namespace, name);
    if (!pod) return [];
    const out = new Set<string>();
    for (const si of pod.labelItem.selectors) {
      for (const u of (si.users as SmallSet<GroupUser> | undefined) ?? []) {
        if ('policies' in u) continue;
        out.add(u.key);
        for (const parent of this.parentsByChild.get(u.key) ?? []) out.add(parent);
      }
    }
    return [...out].sort();
  }

  // ------------------------------------------------------------------------------------------
  // Flush

  /** Recomputes everything affected since the last flush and writes the results. */
  flush(): FlushStats {
    const stats: FlushStats = {
      translatedPolicies: 0,
      syncedAppliedToGroups: 0,
      syncedPolicies: 0,
      syncedAddressGroups: 0,
      deletedGroups: 0,
      appliedToGroupSyncMs: 0,
      networkPolicySyncMs: 0,
      addressGroupSyncMs: 0,
    };
    for (let round = 0; round < 10 && this.pending; round++) this.flushOnce(stats);
    if (this.pending) this.log?.warn(stats, 'policy computation did not settle within 10 rounds');
    else this.log?.debug(stats, 'policy computation settled');
    return stats;
  }

  private drainIndex(): void {
    if (!this.indexDirty) return;
    this.indexDirty = false;
    const dirty = this.index.drainDirty();
    for (const [si, changed] of this.eeIndex.drainDirty()) dirty.set(si, changed);
    for (const [si, changed] of dirty) {
      // AppliedToGroup members carry no IPs, AddressGroup members no Node: an IP-only change
      // leaves AppliedToGroups alone, a Node-only one AddressGroups (the payload keeps the same
      // member objects for them, see podPayload).
      const flags =
        (changed & ~POD_IPS_CHANGED ? ATG_MEMBERS : 0) | (changed & ~POD_NODE_CHANGED ? AG_MEMBERS : 0);
      for (const u of (si.users as SmallSet<GroupUser> | undefined) ?? []) {
        if ('membersDirty' in u) {
          if (flags & AG_MEMBERS) this.markAGMembersDirty(u);
        } else if ('policies' in u) {
          if (flags & ATG_MEMBERS) this.dirtyATGs.add(u);
        } else this.markIGroupDirty(u, flags);
      }
    }
  }

  private flushOnce(stats: FlushStats): void {
    for (const p of this.dirtyTranslate) {
      this.translate(p);
      stats.translatedPolicies++;
    }
    this.dirtyTranslate.clear();
    this.drainIndex();
    for (const [ig, flags] of this.dirtyIGroups) {
      this.markGroupKeyMembersDirty(ig.key, flags);
      for (const parent of this.parentsByChild.get(ig.key) ?? [])
        this.markGroupKeyMembersDirty(parent, flags);
    }
    this.dirtyIGroups.clear();

    const clock = this.phaseClock;
    let t = clock?.() ?? 0;
    const phase = (): number => {
      const start = t;
      t = clock?.() ?? 0;
      return t - start;
    };
    for (const g of this.dirtyATGs) {
      if (!this.atgs.has(g.name) || g.policies.size === 0) continue;
      stats.syncedAppliedToGroups++;
      this.syncATG(g);
    }
    this.dirtyATGs.clear();
    stats.appliedToGroupSyncMs += phase();

    for (const stored of this.deletedPolicies) this.out.networkPolicies.delete(stored.name);
    this.deletedPolicies.length = 0;
    for (const p of this.dirtyPolicySpan) {
      if (this.policies.get(p.key) !== p) continue;
      stats.syncedPolicies++;
      this.syncPolicy(p);
    }
    this.dirtyPolicySpan.clear();
    stats.networkPolicySyncMs += phase();

    for (const g of this.dirtyAGs) {
      if (!this.ags.has(g.name) || g.policies.size === 0) continue;
      stats.syncedAddressGroups++;
      this.syncAG(g);
    }
    this.dirtyAGs.clear();
    stats.addressGroupSyncMs += phase();

    for (const g of this.orphanCandidates) {
      if (g.policies.size > 0) continue;
      stats.deletedGroups++;
      if ('membersDirty' in g) this.deleteAG(g);
      else this.deleteATG(g);
    }
    this.orphanCandidates.clear();
  }

  private deleteATG(g: ATGState): void {
    if (this.atgs.get(g.name) !== g) return;
    this.atgs.delete(g.name);
    if (g.selectorItem) this.releaseSelectorFor(g.selectorItem, g);
    this.nodeSelectorATGs.delete(g);
    this.serviceATGs.delete(g);
    this.dirtyATGs.delete(g);
    if (g.stored) this.out.appliedToGroups.delete(g.name);
  }

  private deleteAG(g: AGState): void {
    if (this.ags.get(g.name) !== g) return;
    this.ags.delete(g.name);
    if (g.selectorItem) this.releaseSelectorFor(g.selectorItem, g);
    this.nodeSelectorAGs.delete(g);
    this.dirtyAGs.delete(g);
    if (g.stored) this.out.addressGroups.delete(g.name);
  }

  /** Pods an internal Group selects for appliedTo use, with Antrea's namespace check for Groups. */
  private igroupPods(ig: IGroupState): { pods: Iterable<PodEntity<MemberPayload>>; error?: string } {
    const sources: IGroupState[] = [];
    if (ig.childGroups.length === 0) sources.push(ig);
    else {
      for (const c of ig.childGroups) {
        const child = this.igroups.get(childKey(ig, c));
        // A child with children of its own exceeds the supported nesting: the Group selects nothing.
        if (child && child.childGroups.length > 0) return { pods: [] };
        if (child) sources.push(child);
      }
    }
    const pods = new Set<PodEntity<MemberPayload>>();
    for (const s of sources) {
      if (!s.selectorItem) continue;
      for (const pod of this.index.podsOf(s.selectorItem)) {
        if (ig.namespace !== '' && pod.state.namespace !== ig.namespace) {
          return {
            pods: [],
            error: `Group ${ig.namespace}/${ig.source.metadata.name ?? ''} with Pods in other Namespaces can not be used as AppliedTo`,
          };
        }
        pods.add(pod);
      }
    }
    return { pods };
  }

  private syncATG(g: ATGState): void {
    // Plain loops, no per-call closures: this runs once per AppliedToGroup on every change.
    const byNode = new Map<string, GroupMember[]>();
    let syncError: string | undefined;
    let pods: Iterable<PodEntity<MemberPayload>> | undefined;
    let podsItem: SelectorItem<MemberPayload> | undefined;
    let nodeSel: Selector | undefined;
    const req = g.req;
    if (req.kind === 'service') {
      const m: GroupMember = { service: { ...req.service } };
      for (const name of this.nodes.keys()) byNode.set(name, [m]);
    } else if (req.kind === 'group') {
      const ig = this.igroups.get(req.sourceGroup);
      if (ig?.nodeSelector) nodeSel = ig.nodeSelector;
      else if (ig) {
        const r = this.igroupPods(ig);
        syncError = r.error;
        pods = r.pods;
      }
    } else if (g.nodeSelector) nodeSel = g.nodeSelector;
    else if (g.selectorItem) podsItem = g.selectorItem;
    if (pods) for (const pod of pods) addATMember(byNode, pod.payload);
    // Label set by label set rather than through podsOf (a generator, ~3x slower per Pod).
    if (podsItem)
      for (const li of podsItem.labelItems) for (const pod of li.pods) addATMember(byNode, pod.payload);
    if (nodeSel)
      for (const [name, n] of this.nodes)
        if (nodeSel.matches(n.labels)) byNode.set(name, [{ node: { name } }]);
    // push() leaves ~17 slots of capacity; retained lists are trimmed to their length, and the
    // usual handful of Nodes is kept in a SmallMap rather than a Map.
    for (const [node, list] of byNode) if (list.length > 1) byNode.set(node, list.slice());
    const membersByNode = compactMap(byNode);

    const prev = g.stored;
    const span: Span = prev && sameSpanKeys(prev.span, byNode) ? prev.span : new SmallSet(byNode.keys());
    if (prev && prev.syncError === syncError && sameMembersByNode(prev.membersByNode, membersByNode)) return;
    // Every object of a kind is built with the same keys in the same order (one hidden class).
    const obj: InternalAppliedToGroup = {
      name: g.name,
      uid: req.kind === 'group' ? req.uid : g.name,
      selector: req.kind === 'selector' ? req.selector.normalizedName : undefined,
      sourceGroup: req.kind === 'group' ? req.sourceGroup : undefined,
      service: req.kind === 'service' ? req.service : undefined,
      membersByNode,
      span: syncError ? EMPTY_SPAN : span,
      syncError,
    };
    g.stored = obj;
    this.out.appliedToGroups.put(obj);
    if (!prev || !sameSpan(prev.span, obj.span) || prev.syncError !== obj.syncError)
      for (const p of g.policies) this.dirtyPolicySpan.add(p);
  }

  private syncPolicy(p: PolicyState): void {
    // After the first store the stored object carries everything but the span.
    const t = p.translated ?? p.stored!;
    let syncError: string | undefined;
    // Policies with a single AppliedToGroup (the common case) share its span object.
    let span: Span = EMPTY_SPAN;
    const spans: Span[] = [];
    for (const g of p.atgs) {
      const s = g.stored;
      if (!s) continue;
      if (s.syncError) syncError ??= s.syncError;
      if (s.span.size > 0 && !spans.includes(s.span)) spans.push(s.span);
    }
    if (spans.length === 1) span = spans[0]!;
    else if (spans.length > 1) {
      const u = new SmallSet<string>();
      for (const s of spans) for (const n of s) u.add(n);
      span = u;
    }
    const prev = p.stored;
    if (prev && sameSpan(prev.span, span)) span = prev.span;
    const obj: InternalNetworkPolicy = {
      name: t.name,
      uid: t.uid,
      generation: t.generation,
      sourceRef: t.sourceRef,
      rules: t.rules,
      appliedToGroups: t.appliedToGroups,
      priority: t.priority,
      tierPriority: t.tierPriority,
      appliedToPerRule: t.appliedToPerRule,
      span,
      syncError,
    };
    if (prev && prev.span === span && prev.syncError === syncError && samePolicy(prev, obj)) return;
    p.stored = obj;
    p.translated = undefined;
    this.out.networkPolicies.put(obj);
    if (!prev || prev.span !== span) for (const g of p.ags) this.dirtyAGs.add(g);
  }

  private syncAG(g: AGState): void {
    const prev = g.stored;
    let members = prev?.members;
    if (g.membersDirty || !members) {
      g.membersDirty = false;
      members = this.agMembers(g).slice();
      if (prev && sameMembers(prev.members, members)) members = prev.members;
    }
    // AddressGroup span: union of the spans of the policies using it. Policies sharing an
    // AppliedToGroup share span objects, so only distinct objects are merged.
    const spans = new Set<Span>();
    for (const p of g.policies) if (p.stored && p.stored.span.size > 0) spans.add(p.stored.span);
    let span: Span;
    if (spans.size === 0) span = EMPTY_SPAN;
    else if (spans.size === 1) span = spans.values().next().value!;
    else {
      const u = new SmallSet<string>();
      for (const s of spans) for (const n of s) u.add(n);
      span = u;
    }
    if (prev && sameSpan(prev.span, span)) span = prev.span;
    if (prev && prev.members === members && prev.span === span) return;
    const req = g.req;
    const obj: InternalAddressGroup = {
      name: g.name,
      uid: req.kind === 'group' ? req.uid : g.name,
      selector: req.kind === 'selector' ? req.selector.normalizedName : undefined,
      sourceGroup: req.kind === 'group' ? req.sourceGroup : undefined,
      members,
      span,
    };
    g.stored = obj;
    this.out.addressGroups.put(obj);
  }

  private agMembers(g: AGState): GroupMember[] {
    const out: GroupMember[] = [];
    const addPods = (si: SelectorItem<MemberPayload>) => {
      // Label set by label set rather than through podsOf (a generator, ~3x slower per Pod).
      for (const li of si.labelItems)
        for (const pod of li.pods) {
          const m = pod.payload.agMember;
          if (m) out.push(m);
        }
    };
    const addNodes = (sel: Selector) => {
      for (const n of this.nodes.values()) if (sel.matches(n.labels)) out.push(n.member);
    };
    const req = g.req;
    if (req.kind === 'group') {
      const ig = this.igroups.get(req.sourceGroup);
      if (!ig) return out;
      const collect = (grp: IGroupState, level: number) => {
        if (level > MAX_GROUP_NESTING || grp.ipBlocks.length > 0) return;
        if (grp.nodeSelector) addNodes(grp.nodeSelector);
        else if (grp.childGroups.length === 0) {
          if (grp.selectorItem) addPods(grp.selectorItem);
        } else
          for (const c of grp.childGroups) {
            const child = this.igroups.get(childKey(grp, c));
            if (child) collect(child, level + 1);
          }
      };
      collect(ig, 1);
      // Children may overlap: keep one member per object.
      return ig.childGroups.length > 0 ? [...new Set(out)] : out;
    }
    if (g.nodeSelector) addNodes(g.nodeSelector);
    else if (g.selectorItem) addPods(g.selectorItem);
    return out;
  }
}

function addATMember(byNode: Map<string, GroupMember[]>, payload: MemberPayload): void {
  const m = payload.atMember;
  if (!m) return;
  const list = byNode.get(payload.nodeName);
  if (list) list.push(m);
  else byNode.set(payload.nodeName, [m]);
}

function childKey(parent: IGroupState, child: string): string {
  return parent.namespace ? `${parent.namespace}/${child}` : child;
}

function sameLabels(a: Labels, b: Labels): boolean {
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) if (a[k] !== b[k] || !Object.hasOwn(b, k)) return false;
  return true;
}

function sameSpanKeys(span: Span, byNode: ReadonlyMap<string, unknown>): boolean {
  if (span.size !== byNode.size) return false;
  for (const n of byNode.keys()) if (!span.has(n)) return false;
  return true;
}

function samePolicy(a: InternalNetworkPolicy, b: InternalNetworkPolicy): boolean {
  return (
    a.name === b.name &&
    a.generation === b.generation &&
    a.priority === b.priority &&
    a.tierPriority === b.tierPriority &&
    a.appliedToPerRule === b.appliedToPerRule &&
    deepEqual(a.sourceRef, b.sourceRef) &&
    deepEqual(a.appliedToGroups, b.appliedToGroups) &&
    deepEqual(a.rules, b.rules)
  );
}

function translateIPBlocks(blocks: readonly { cidr: string; except?: string[] }[]): IPBlock[] {
  const out: IPBlock[] = [];
  for (const b of blocks) {
    const cidr = parseCIDR(b.cidr, { goBytes: true });
    if (!cidr) continue;
    const except = (b.except ?? [])
      .map((e) => parseCIDR(e, { goBytes: true }))
      .filter((n) => n !== undefined);
    out.push(except.length > 0 ? { cidr, except } : { cidr });
  }
  return out;
}
