import type {
  IPBlock,
  NetworkPolicyPeer,
  NetworkPolicyReference,
  NetworkPolicyRule,
  RuleAction,
  ServiceReference,
} from '@antrea-ts/apis';
import {
  type AnyLabelSelector,
  compileSelector,
  type Labels,
  parseCIDR,
  type SelectorCache,
} from '@antrea-ts/apis';
import type { V1NetworkPolicy } from '@kubernetes/client-node';
import type {
  CrdAppliedTo,
  CrdClusterNetworkPolicy,
  CrdGroupSpec,
  CrdIPBlock,
  CrdNetworkPolicy,
  CrdNetworkPolicyPeer,
  CrdPeerService,
  CrdRule,
} from '../inputs.js';
import { type GroupSelector, newGroupSelector } from '../labels/group-selector.js';
import type { InternalNetworkPolicy } from '../types.js';
import { normalizedUID } from '../uuid.js';
import { defaultRuleName } from './rule-name.js';
import { crdServices, type K8sPortLike, k8sServices } from './services.js';

// Translation of source policies into internal NetworkPolicies plus the groups they need, following
// Antrea's processNetworkPolicy / processAntreaClusterNetworkPolicy / processAntreaNetworkPolicy.
// Pure: everything it needs to know about the cluster comes through TranslationContext.

/** A group a policy needs; the engine creates it on first use and shares it by name. */
export type GroupRequest =
  | { readonly kind: 'selector'; readonly name: string; readonly selector: GroupSelector }
  | { readonly kind: 'group'; readonly name: string; readonly sourceGroup: string; readonly uid: string }
  | { readonly kind: 'service'; readonly name: string; readonly service: ServiceReference };

/** What translation needs to know about an internal Group (ClusterGroup/Group). */
export interface InternalGroupInfo {
  readonly uid: string;
  readonly spec: CrdGroupSpec;
  /** The Group is defined by ipBlocks (it then cannot be an appliedTo). */
  readonly hasIPBlocks: boolean;
  /** processInternalGroupForRule: whether a rule peer needs an AddressGroup, and its ipBlocks. */
  readonly createAddressGroup: boolean;
  readonly ruleIPBlocks: readonly IPBlock[];
}

export interface TranslationContext {
  /** Shares compiled selectors across translations (optional). */
  readonly selectorCache?: SelectorCache;
  tierPriority(tier: string | undefined): number;
  /** Key is the ClusterGroup name or "namespace/name" of a Group. */
  internalGroup(key: string): InternalGroupInfo | undefined;
  /** Namespaces with known labels. */
  namespaces(): Iterable<{ name: string; labels: Labels }>;
  namespaceLabels(name: string): Labels | undefined;
  /** The Namespace annotation networkpolicy.antrea.io/enable-logging parses as true. */
  namespaceLoggingEnabled(namespace: string): boolean;
}

export interface PolicyTranslation {
  readonly policy: Omit<InternalNetworkPolicy, 'span' | 'syncError'>;
  readonly appliedToGroups: ReadonlyMap<string, GroupRequest>;
  readonly addressGroups: ReadonlyMap<string, GroupRequest>;
}

/** Prefix + key of the label Antrea adds to every Pod for serviceAccount selection. */
export const SERVICE_ACCOUNT_LABEL = 'internal.antrea.io/service-account';
export const ENABLE_NP_LOGGING_ANNOTATION = 'networkpolicy.antrea.io/enable-logging';
/** Tier priority of a policy that names no Tier (the "application" Tier). */
export const DEFAULT_TIER_PRIORITY = 250;

const IPV4_ZERO = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0]);
const IPV6_ZERO = new Uint8Array(16);

/** matchAllPeer: both "any" networks; agents use those of the families they run. */
function matchAllIPBlocks(): IPBlock[] {
  return [{ cidr: { ip: IPV4_ZERO, prefixLength: 0 } }, { cidr: { ip: IPV6_ZERO, prefixLength: 0 } }];
}

export function selectorGroup(
  ctx: TranslationContext,
  namespace: string,
  pod: AnyLabelSelector | undefined | null,
  ns: AnyLabelSelector | undefined | null,
  ee: AnyLabelSelector | undefined | null,
  node: AnyLabelSelector | undefined | null,
): GroupRequest {
  const selector = newGroupSelector(namespace, pod, ns, ee, node, ctx.selectorCache);
  return { kind: 'selector', name: normalizedUID(selector.normalizedName), selector };
}

function serviceAccountSelector(name: string | undefined): AnyLabelSelector {
  return { matchLabels: { [SERVICE_ACCOUNT_LABEL]: name ?? '' } };
}

function namespacedName(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function toIPBlock(b: CrdIPBlock): IPBlock | undefined {
  const cidr = parseCIDR(b.cidr ?? '', { goBytes: true });
  if (!cidr) return undefined;
  const except: IPBlock['except'] = [];
  for (const e of b.except ?? []) {
    const n = parseCIDR(e, { goBytes: true });
    if (!n) return undefined;
    except.push(n);
  }
  return except.length > 0 ? { cidr, except } : { cidr };
}

export function put(map: Map<string, GroupRequest>, g: GroupRequest): GroupRequest {
  map.set(g.name, g);
  return g;
}

export function peerOf(p: NetworkPolicyPeer): NetworkPolicyPeer {
  // Drop empty lists so that equal peers compare equal and encode minimally; slice() trims the
  // spare capacity push() leaves, since these lists live as long as the policy.
  const out: NetworkPolicyPeer = {};
  if (p.addressGroups && p.addressGroups.length > 0) out.addressGroups = p.addressGroups.slice();
  if (p.ipBlocks && p.ipBlocks.length > 0) out.ipBlocks = p.ipBlocks.slice();
  if (p.fqdns && p.fqdns.length > 0) out.fqdns = p.fqdns.slice();
  if (p.toServices && p.toServices.length > 0) out.toServices = p.toServices.slice();
  return out;
}

// ---------------------------------------------------------------------------------------------
// K8s NetworkPolicy

interface K8sPeerLike {
  ipBlock?: { cidr: string; except?: string[] };
  namespaceSelector?: AnyLabelSelector;
  podSelector?: AnyLabelSelector;
}

interface K8sRuleLike {
  from?: K8sPeerLike[];
  _from?: K8sPeerLike[];
  to?: K8sPeerLike[];
  ports?: K8sPortLike[];
}

/** The empty-peers case shared by all policy kinds (matchAllPeer, or all Pods for egress named ports). */
function matchAllPeer(
  ctx: TranslationContext,
  dir: 'In' | 'Out',
  namedPort: boolean,
  namespace: string,
  ags: Map<string, GroupRequest>,
) {
  if (dir === 'In' || !namedPort) return { ipBlocks: matchAllIPBlocks() };
  // Named ports must be resolved against every Pod, so egress to "anywhere" with a named port also
  // carries the AddressGroup of all Pods in all Namespaces.
  const all = put(ags, selectorGroup(ctx, namespace, undefined, {}, undefined, undefined));
  return { addressGroups: [all.name], ipBlocks: matchAllIPBlocks() };
}

function k8sPeer(
  ctx: TranslationContext,
  peers: readonly K8sPeerLike[] | undefined,
  namespace: string,
  dir: 'In' | 'Out',
  namedPort: boolean,
  ags: Map<string, GroupRequest>,
): NetworkPolicyPeer {
  // `from: []`, a missing `from` and no rule peers at all mean the same: every address.
  if (!peers || peers.length === 0) return matchAllPeer(ctx, dir, namedPort, namespace, ags);
  const addressGroups: string[] = [];
  const ipBlocks: IPBlock[] = [];
  for (const p of peers) {
    if (p.ipBlock) {
      const b = toIPBlock(p.ipBlock);
      if (b) ipBlocks.push(b);
      continue;
    }
    // A missing namespaceSelector pins the peer to the policy's Namespace; `{}` means all of them.
    addressGroups.push(
      put(ags, selectorGroup(ctx, namespace, p.podSelector, p.namespaceSelector, undefined, undefined)).name,
    );
  }
  return peerOf({ addressGroups, ipBlocks });
}

export function translateK8sNetworkPolicy(np: V1NetworkPolicy, ctx: TranslationContext): PolicyTranslation {
  const namespace = np.metadata?.namespace ?? '';
  const uid = np.metadata?.uid ?? '';
  const atgs = new Map<string, GroupRequest>();
  const ags = new Map<string, GroupRequest>();
  put(atgs, selectorGroup(ctx, namespace, np.spec?.podSelector ?? {}, undefined, undefined, undefined));
  const enableLogging = ctx.namespaceLoggingEnabled(namespace);
  const rules: NetworkPolicyRule[] = [];
  const ingress = (np.spec?.ingress ?? []) as K8sRuleLike[];
  const egress = (np.spec?.egress ?? []) as K8sRuleLike[];
  for (const r of ingress) {
    const { services, namedPort } = k8sServices(r.ports);
    const rule: NetworkPolicyRule = {
      direction: 'In',
      from: k8sPeer(ctx, r._from ?? r.from, namespace, 'In', namedPort, ags),
      priority: -1,
      action: 'Allow',
      enableLogging,
    };
    if (services) rule.services = services;
    rules.push(rule);
  }
  for (const r of egress) {
    const { services, namedPort } = k8sServices(r.ports);
    const rule: NetworkPolicyRule = {
      direction: 'Out',
      to: k8sPeer(ctx, r.to, namespace, 'Out', namedPort, ags),
      priority: -1,
      action: 'Allow',
      enableLogging,
    };
    if (services) rule.services = services;
    rules.push(rule);
  }
  // A direction listed in policyTypes with no rule is isolated: a rule with no peer and no action
  // selects no traffic to allow, so the agent's default drop applies.
  const types = np.spec?.policyTypes ?? [];
  if (types.includes('Ingress') && ingress.length === 0)
    rules.push({ direction: 'In', priority: 0, enableLogging });
  if (types.includes('Egress') && egress.length === 0)
    rules.push({ direction: 'Out', priority: 0, enableLogging });
  const sourceRef: NetworkPolicyReference = {
    type: 'K8sNetworkPolicy',
    namespace,
    name: np.metadata?.name ?? '',
    uid,
  };
  return {
    policy: {
      name: uid,
      uid,
      generation: np.metadata?.generation ?? 0,
      sourceRef,
      rules: rules.slice(),
      appliedToGroups: [...atgs.keys()].sort().slice(),
      appliedToPerRule: false,
    },
    appliedToGroups: atgs,
    addressGroups: ags,
  };
}

// ---------------------------------------------------------------------------------------------
// Antrea-native policies

interface CrdPeerResult {
  peer: NetworkPolicyPeer;
}

function groupAppliedTo(namespace: string, group: string, ctx: TranslationContext): GroupRequest | undefined {
  const key = namespacedName(namespace, group);
  const ig = ctx.internalGroup(key);
  // A Group that does not exist yet selects nothing; one made of ipBlocks cannot be applied to.
  if (!ig || ig.hasIPBlocks) return undefined;
  return { kind: 'group', name: key, sourceGroup: key, uid: ig.uid };
}

function serviceAppliedTo(svc: { name?: string; namespace?: string }): GroupRequest {
  const ref = { name: svc.name ?? '', namespace: svc.namespace ?? '' };
  return { kind: 'service', name: normalizedUID(namespacedName(ref.namespace, ref.name)), service: ref };
}

function crdPeer(
  peers: readonly CrdNetworkPolicyPeer[],
  namespace: string,
  dir: 'In' | 'Out',
  namedPort: boolean,
  ags: Map<string, GroupRequest>,
  ctx: TranslationContext,
): CrdPeerResult {
  if (peers.length === 0) return { peer: matchAllPeer(ctx, dir, namedPort, '', ags) };
  const addressGroups: string[] = [];
  const ipBlocks: IPBlock[] = [];
  const fqdns: string[] = [];
  for (const p of peers) {
    if (p.ipBlock) {
      const b = toIPBlock(p.ipBlock);
      if (b) ipBlocks.push(b);
    } else if (p.group) {
      const key = namespacedName(namespace, p.group);
      const ig = ctx.internalGroup(key);
      if (ig) {
        if (ig.createAddressGroup)
          addressGroups.push(put(ags, { kind: 'group', name: key, sourceGroup: key, uid: ig.uid }).name);
        ipBlocks.push(...ig.ruleIPBlocks);
      }
    } else if (p.fqdn) {
      fqdns.push(p.fqdn);
    } else if (p.serviceAccount) {
      const g = selectorGroup(
        ctx,
        p.serviceAccount.namespace ?? '',
        serviceAccountSelector(p.serviceAccount.name),
        undefined,
        undefined,
        undefined,
      );
      addressGroups.push(put(ags, g).name);
    } else if (p.nodeSelector) {
      addressGroups.push(
        put(ags, selectorGroup(ctx, '', undefined, undefined, undefined, p.nodeSelector)).name,
      );
    } else {
      const g = selectorGroup(
        ctx,
        namespace,
        p.podSelector,
        p.namespaceSelector,
        p.externalEntitySelector,
        undefined,
      );
      addressGroups.push(put(ags, g).name);
    }
  }
  return { peer: peerOf({ addressGroups, ipBlocks, fqdns }) };
}

function toServicesPeer(svcs: readonly CrdPeerService[], defaultNamespace: string): NetworkPolicyPeer {
  const toServices: ServiceReference[] = [];
  for (const s of svcs) {
    // ClusterSet-scoped Services need Multicluster, which this controller does not run.
    if (s.scope === 'ClusterSet') continue;
    toServices.push({ namespace: s.namespace || defaultNamespace, name: s.name ?? '' });
  }
  return peerOf({ toServices });
}

function clusterAppliedTo(ats: readonly CrdAppliedTo[] | undefined, ctx: TranslationContext): GroupRequest[] {
  const out: GroupRequest[] = [];
  for (const at of ats ?? []) {
    let g: GroupRequest | undefined;
    if (at.nodeSelector) g = selectorGroup(ctx, '', undefined, undefined, undefined, at.nodeSelector);
    else if (at.group) g = groupAppliedTo('', at.group, ctx);
    else if (at.service) g = serviceAppliedTo(at.service);
    else if (at.serviceAccount)
      g = selectorGroup(
        ctx,
        at.serviceAccount.namespace ?? '',
        serviceAccountSelector(at.serviceAccount.name),
        undefined,
        undefined,
        undefined,
      );
    else
      g = selectorGroup(ctx, '', at.podSelector, at.namespaceSelector, at.externalEntitySelector, undefined);
    if (g) out.push(g);
  }
  return out;
}

function namespacedAppliedTo(
  namespace: string,
  ats: readonly CrdAppliedTo[] | undefined,
  ctx: TranslationContext,
) {
  const out: GroupRequest[] = [];
  for (const at of ats ?? []) {
    const g = at.group
      ? groupAppliedTo(namespace, at.group, ctx)
      : selectorGroup(
          ctx,
          namespace,
          at.podSelector,
          at.namespaceSelector,
          at.externalEntitySelector,
          undefined,
        );
    if (g) out.push(g);
  }
  return out;
}

/** getAffectedNamespacesForAppliedTo: Namespaces an appliedTo can select, with their labels. */
function affectedNamespaces(at: CrdAppliedTo, ctx: TranslationContext): Map<string, Labels> {
  const out = new Map<string, Labels>();
  let nsSel: AnyLabelSelector | undefined = at.namespaceSelector;
  if (at.group) {
    const ig = ctx.internalGroup(at.group);
    if (!ig) return out;
    if (ig.spec.namespaceSelector || ig.spec.podSelector) nsSel = ig.spec.namespaceSelector;
  }
  const sel = nsSel ? compileSelector(nsSel, ctx.selectorCache) : undefined;
  for (const ns of ctx.namespaces()) if (!sel || sel.matches(ns.labels)) out.set(ns.name, ns.labels);
  return out;
}

function sortedEntries<V>(m: Map<string, V>): [string, V][] {
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** Groups Namespaces by their values of `keys`; Namespaces missing a key are left out. */
function groupNamespacesByLabelValues(
  nsLabels: Map<string, Labels>,
  keys: readonly string[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [ns, labels] of nsLabels) {
    let key = '';
    let complete = true;
    for (const k of keys) {
      if (!Object.hasOwn(labels, k)) {
        complete = false;
        break;
      }
      key += `${labels[k]},`;
    }
    if (!complete || key === '') continue;
    const list = out.get(key);
    if (list) list.push(ns);
    else out.set(key, [ns]);
  }
  return out;
}

function ruleBase(
  r: CrdRule,
  dir: 'In' | 'Out',
  idx: number,
  prefix: 'ingress' | 'egress',
): NetworkPolicyRule {
  const rule: NetworkPolicyRule = {
    direction: dir,
    priority: idx,
    enableLogging: r.enableLogging ?? false,
    // Antrea's mutating webhook names unnamed rules; doing it here gives the same name whether or
    // not the webhook ran.
    name: r.name || defaultRuleName(prefix, r),
  };
  if (r.action) rule.action = r.action as RuleAction;
  if (r.logLabel) rule.logLabel = r.logLabel;
  if (r.l7Protocols && r.l7Protocols.length > 0) rule.l7Protocols = r.l7Protocols.map((l) => ({ ...l }));
  return rule;
}

function withPeer(
  base: NetworkPolicyRule,
  services: NetworkPolicyRule['services'],
  peer: NetworkPolicyPeer,
  ruleATGs: readonly GroupRequest[],
): NetworkPolicyRule {
  const rule: NetworkPolicyRule = {
    direction: base.direction,
    from: base.direction === 'In' ? peer : undefined,
    to: base.direction === 'Out' ? peer : undefined,
    services,
    priority: base.priority,
    action: base.action,
    enableLogging: base.enableLogging,
    appliedToGroups: ruleATGs.length > 0 ? ruleATGs.map((g) => g.name) : undefined,
    name: base.name,
    l7Protocols: base.l7Protocols,
    logLabel: base.logLabel,
  };
  return rule;
}

function hasPerNamespaceRule(spec: CrdClusterNetworkPolicy['spec']): boolean {
  for (const r of spec.ingress ?? []) for (const p of r.from ?? []) if (p.namespaces) return true;
  for (const r of spec.egress ?? []) for (const p of r.to ?? []) if (p.namespaces) return true;
  return false;
}

export function translateClusterNetworkPolicy(
  cnp: CrdClusterNetworkPolicy,
  ctx: TranslationContext,
): PolicyTranslation {
  const spec = cnp.spec;
  const specAppliedTo = spec.appliedTo ?? [];
  const perNamespace = hasPerNamespaceRule(spec);
  // Rules for each selected Namespace need their own appliedTo, so such policies go per rule.
  const appliedToPerRule = specAppliedTo.length === 0 || perNamespace;
  const atgs = new Map<string, GroupRequest>();
  const ags = new Map<string, GroupRequest>();
  const atgPerNs = new Map<string, GroupRequest>();
  let labelsPerNs = new Map<string, Labels>();

  const saAppliedTo = (sa: NonNullable<CrdAppliedTo['serviceAccount']>) =>
    selectorGroup(ctx, sa.namespace ?? '', serviceAccountSelector(sa.name), undefined, undefined, undefined);

  if (perNamespace && specAppliedTo.length > 0) {
    for (const at of specAppliedTo) {
      if (at.serviceAccount) {
        const ns = at.serviceAccount.namespace ?? '';
        const g = put(atgs, saAppliedTo(at.serviceAccount));
        atgPerNs.set(ns, g);
        labelsPerNs.set(ns, ctx.namespaceLabels(ns) ?? {});
      } else {
        // Antrea replaces (not merges) the label map per appliedTo; kept for identical output.
        labelsPerNs = affectedNamespaces(at, ctx);
        for (const ns of labelsPerNs.keys())
          atgPerNs.set(
            ns,
            put(
              atgs,
              selectorGroup(ctx, ns, at.podSelector, undefined, at.externalEntitySelector, undefined),
            ),
          );
      }
    }
  }

  const rules: NetworkPolicyRule[] = [];
  const processRules = (list: readonly CrdRule[] | undefined, dir: 'In' | 'Out') => {
    const prefix = dir === 'In' ? 'ingress' : 'egress';
    (list ?? []).forEach((r, idx) => {
      const { services, namedPort } = crdServices(r.ports, r.protocols);
      const peers = (dir === 'In' ? r.from : r.to) ?? [];
      const clusterPeers = peers.filter((p) => !p.namespaces);
      const selfPeers = peers.filter((p) => p.namespaces?.match === 'Self');
      const sameLabelPeers = peers.filter(
        (p) => p.namespaces && p.namespaces.match !== 'Self' && (p.namespaces.sameLabels?.length ?? 0) > 0,
      );
      const base = ruleBase(r, dir, idx, prefix);
      const addRule = (peer: NetworkPolicyPeer, ruleATGs: readonly GroupRequest[]) => {
        for (const g of ruleATGs) put(atgs, g);
        rules.push(withPeer(base, services, peer, ruleATGs));
      };
      if (clusterPeers.length > 0 || selfPeers.length + sameLabelPeers.length === 0) {
        const ruleAppliedTo = appliedToPerRule && specAppliedTo.length > 0 ? specAppliedTo : r.appliedTo;
        const ruleATGs = clusterAppliedTo(ruleAppliedTo, ctx);
        if (r.toServices) addRule(toServicesPeer(r.toServices, ''), ruleATGs);
        else addRule(crdPeer(clusterPeers, '', dir, namedPort, ags, ctx).peer, ruleATGs);
      }
      const namespacedPeer = (ns: string) => {
        const names = selfPeers.map(
          (p) =>
            put(ags, selectorGroup(ctx, ns, p.podSelector, undefined, p.externalEntitySelector, undefined))
              .name,
        );
        return peerOf({ addressGroups: names });
      };
      if (selfPeers.length > 0) {
        if (specAppliedTo.length > 0) {
          for (const [ns, g] of sortedEntries(atgPerNs)) addRule(namespacedPeer(ns), [g]);
        } else {
          for (const at of r.appliedTo ?? []) {
            if (at.serviceAccount) {
              addRule(namespacedPeer(at.serviceAccount.namespace ?? ''), [saAppliedTo(at.serviceAccount)]);
            } else {
              for (const ns of [...affectedNamespaces(at, ctx).keys()].sort())
                addRule(namespacedPeer(ns), [
                  selectorGroup(ctx, ns, at.podSelector, undefined, at.externalEntitySelector, undefined),
                ]);
            }
          }
        }
      }
      if (sameLabelPeers.length > 0) {
        let perNs = atgPerNs;
        let labels = labelsPerNs;
        if (specAppliedTo.length === 0) {
          perNs = new Map();
          labels = new Map();
          for (const at of r.appliedTo ?? []) {
            if (at.serviceAccount) {
              const ns = at.serviceAccount.namespace ?? '';
              perNs.set(ns, saAppliedTo(at.serviceAccount));
              labels.set(ns, ctx.namespaceLabels(ns) ?? {});
            } else {
              labels = affectedNamespaces(at, ctx);
              for (const ns of labels.keys())
                perNs.set(
                  ns,
                  selectorGroup(ctx, ns, at.podSelector, undefined, at.externalEntitySelector, undefined),
                );
            }
          }
        }
        for (const p of sameLabelPeers) {
          const keys = p.namespaces!.sameLabels!;
          for (const [values, namespaces] of sortedEntries(groupNamespacesByLabelValues(labels, keys))) {
            const vals = values.split(',');
            const matchLabels: Record<string, string> = {};
            keys.forEach((k, i) => {
              matchLabels[k] = vals[i]!;
            });
            const ag = put(
              ags,
              selectorGroup(ctx, '', p.podSelector, { matchLabels }, p.externalEntitySelector, undefined),
            );
            const ruleATGs = namespaces
              .sort()
              .map((ns) => perNs.get(ns))
              .filter((g): g is GroupRequest => g !== undefined);
            addRule(peerOf({ addressGroups: [ag.name] }), ruleATGs);
          }
        }
      }
    });
  };
  processRules(spec.ingress, 'In');
  processRules(spec.egress, 'Out');
  if (!perNamespace) for (const g of clusterAppliedTo(specAppliedTo, ctx)) put(atgs, g);
  const uid = cnp.metadata.uid ?? '';
  return {
    policy: {
      name: uid,
      uid,
      generation: cnp.metadata.generation ?? 0,
      sourceRef: { type: 'AntreaClusterNetworkPolicy', name: cnp.metadata.name ?? '', uid },
      rules: rules.slice(),
      appliedToGroups: [...atgs.keys()].sort().slice(),
      priority: spec.priority,
      tierPriority: ctx.tierPriority(spec.tier),
      appliedToPerRule,
    },
    appliedToGroups: atgs,
    addressGroups: ags,
  };
}

export function translateAntreaNetworkPolicy(
  np: CrdNetworkPolicy,
  ctx: TranslationContext,
): PolicyTranslation {
  const spec = np.spec;
  const namespace = np.metadata.namespace ?? '';
  const atgs = new Map<string, GroupRequest>();
  const ags = new Map<string, GroupRequest>();
  for (const g of namespacedAppliedTo(namespace, spec.appliedTo, ctx)) put(atgs, g);
  const rules: NetworkPolicyRule[] = [];
  const processRules = (list: readonly CrdRule[] | undefined, dir: 'In' | 'Out') => {
    const prefix = dir === 'In' ? 'ingress' : 'egress';
    (list ?? []).forEach((r, idx) => {
      const { services, namedPort } = crdServices(r.ports, r.protocols);
      const ruleATGs = namespacedAppliedTo(namespace, r.appliedTo, ctx);
      for (const g of ruleATGs) put(atgs, g);
      const peer =
        dir === 'Out' && r.toServices
          ? toServicesPeer(r.toServices, namespace)
          : crdPeer((dir === 'In' ? r.from : r.to) ?? [], namespace, dir, namedPort, ags, ctx).peer;
      rules.push(withPeer(ruleBase(r, dir, idx, prefix), services, peer, ruleATGs));
    });
  };
  processRules(spec.ingress, 'In');
  processRules(spec.egress, 'Out');
  const uid = np.metadata.uid ?? '';
  return {
    policy: {
      name: uid,
      uid,
      generation: np.metadata.generation ?? 0,
      sourceRef: { type: 'AntreaNetworkPolicy', namespace, name: np.metadata.name ?? '', uid },
      rules: rules.slice(),
      appliedToGroups: [...atgs.keys()].sort().slice(),
      priority: spec.priority,
      tierPriority: ctx.tierPriority(spec.tier),
      appliedToPerRule: (spec.appliedTo ?? []).length === 0,
    },
    appliedToGroups: atgs,
    addressGroups: ags,
  };
}
