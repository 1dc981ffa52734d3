import type {
  AdminNetworkPolicy,
  AdminNetworkPolicyEgressPeer,
  AdminNetworkPolicyIngressPeer,
  AdminNetworkPolicyPort,
  AdminNetworkPolicySubject,
  BaselineAdminNetworkPolicy,
  IPBlock,
  NetworkPolicyReference,
  NetworkPolicyRule,
  RuleAction,
  Service,
} from '@antrea-ts/apis';
import {
  type GroupRequest,
  type PolicyTranslation,
  peerOf,
  put,
  selectorGroup,
  type TranslationContext,
  toIPBlock,
} from '../compute/translate.js';

// AdminNetworkPolicy and BaselineAdminNetworkPolicy (policy.networking.k8s.io/v1alpha1) into
// internal NetworkPolicies, as Antrea does with its AdminNetworkPolicy feature gate: each becomes a
// cluster-wide policy in a Tier of its own that no Tier object represents. ANPs sit after every
// Antrea-native Tier but the baseline one, so before K8s NetworkPolicies; the BANP after the
// baseline Tier. Pure, like compute/translate.ts.

/** After the application Tier (250); agents evaluate K8s NetworkPolicies after it. */
export const ADMIN_NETWORK_POLICY_TIER_PRIORITY = 251;
/** After the baseline Tier (253): what no K8s NetworkPolicy decided, the BANP decides. */
export const BASELINE_ADMIN_NETWORK_POLICY_TIER_PRIORITY = 254;
/** The single BANP's priority inside its Tier. */
export const BASELINE_ADMIN_NETWORK_POLICY_PRIORITY = 1;

/** Deny drops silently (Antrea maps it to Drop); Pass leaves the decision to later Tiers. */
const ACTIONS: Readonly<Record<string, RuleAction>> = { Allow: 'Allow', Deny: 'Drop', Pass: 'Pass' };

type Peer = AdminNetworkPolicyIngressPeer & AdminNetworkPolicyEgressPeer;

interface AdminRuleLike {
  name?: string;
  action: string;
  ports?: AdminNetworkPolicyPort[];
}

/** A numbered port, a range (start..end) or a named port; a named port carries no protocol. */
function adminServices(ports: readonly AdminNetworkPolicyPort[] | undefined): Service[] | undefined {
  if (!ports) return undefined;
  const out: Service[] = [];
  for (const p of ports) {
    if (p.portNumber) out.push({ protocol: p.portNumber.protocol ?? 'TCP', port: p.portNumber.port });
    else if (p.portRange)
      out.push({
        protocol: p.portRange.protocol ?? 'TCP',
        port: p.portRange.start,
        endPort: p.portRange.end,
      });
    else if (p.namedPort !== undefined) out.push({ port: p.namedPort });
  }
  return out;
}

function subjectGroups(subject: AdminNetworkPolicySubject, ctx: TranslationContext): GroupRequest[] {
  if (subject.pods)
    return [selectorGroup(ctx, '', subject.pods.podSelector, subject.pods.namespaceSelector, null, null)];
  if (subject.namespaces) return [selectorGroup(ctx, '', null, subject.namespaces, null, null)];
  return [];
}

/** One peer of a rule: Pods, whole Namespaces, Nodes (AddressGroups) or networks (ipBlocks). */
function peerFor(
  peers: readonly Peer[],
  ags: Map<string, GroupRequest>,
  ctx: TranslationContext,
): { addressGroups: string[]; ipBlocks: IPBlock[] } {
  const addressGroups: string[] = [];
  const ipBlocks: IPBlock[] = [];
  for (const p of peers) {
    let g: GroupRequest | undefined;
    if (p.pods) g = selectorGroup(ctx, '', p.pods.podSelector, p.pods.namespaceSelector, null, null);
    else if (p.namespaces) g = selectorGroup(ctx, '', null, p.namespaces, null, null);
    else if (p.nodes) g = selectorGroup(ctx, '', null, null, null, p.nodes);
    else if (p.networks)
      for (const cidr of p.networks) {
        // The CRD validates CIDRs; one that still does not parse matches nothing.
        const b = toIPBlock({ cidr });
        if (b) ipBlocks.push(b);
      }
    if (g) addressGroups.push(put(ags, g).name);
  }
  return { addressGroups, ipBlocks };
}

function adminRules(
  ingress: readonly (AdminRuleLike & { from: Peer[] })[] | undefined,
  egress: readonly (AdminRuleLike & { to: Peer[] })[] | undefined,
  ags: Map<string, GroupRequest>,
  ctx: TranslationContext,
): NetworkPolicyRule[] {
  const rules: NetworkPolicyRule[] = [];
  const add = (r: AdminRuleLike, peers: readonly Peer[] | undefined, idx: number, dir: 'In' | 'Out') => {
    // A rule without peers selects no traffic (the CRD requires one); its index still counts.
    if (!peers || peers.length === 0) return;
    const peer = peerOf(peerFor(peers, ags, ctx));
    const services = adminServices(r.ports);
    rules.push({
      direction: dir,
      ...(dir === 'In' ? { from: peer } : { to: peer }),
      ...(services ? { services } : {}),
      priority: idx,
      action: ACTIONS[r.action] ?? 'Drop',
      enableLogging: false,
      name: r.name ?? '',
    });
  };
  for (const [i, r] of (ingress ?? []).entries()) add(r, r.from, i, 'In');
  for (const [i, r] of (egress ?? []).entries()) add(r, r.to, i, 'Out');
  return rules;
}

function adminTranslation(
  source: AdminNetworkPolicy | BaselineAdminNetworkPolicy,
  type: NetworkPolicyReference['type'],
  priority: number,
  tierPriority: number,
  ctx: TranslationContext,
): PolicyTranslation {
  const atgs = new Map<string, GroupRequest>();
  const ags = new Map<string, GroupRequest>();
  for (const g of subjectGroups(source.spec.subject ?? {}, ctx)) put(atgs, g);
  const rules = adminRules(source.spec.ingress, source.spec.egress, ags, ctx);
  const uid = source.metadata.uid ?? '';
  return {
    policy: {
      name: uid,
      uid,
      generation: source.metadata.generation ?? 0,
      sourceRef: { type, name: source.metadata.name ?? '', uid },
      rules,
      appliedToGroups: [...atgs.keys()].sort(),
      priority,
      tierPriority,
      appliedToPerRule: false,
    },
    appliedToGroups: atgs,
    addressGroups: ags,
  };
}

/** processAdminNetworkPolicy: the ANP's priority orders it among ANPs. */
export function translateAdminNetworkPolicy(
  anp: AdminNetworkPolicy,
  ctx: TranslationContext,
): PolicyTranslation {
  return adminTranslation(
    anp,
    'AdminNetworkPolicy',
    anp.spec.priority,
    ADMIN_NETWORK_POLICY_TIER_PRIORITY,
    ctx,
  );
}

/** processBaselineAdminNetworkPolicy: Allow and Deny only, below K8s NetworkPolicies. */
export function translateBaselineAdminNetworkPolicy(
  banp: BaselineAdminNetworkPolicy,
  ctx: TranslationContext,
): PolicyTranslation {
  return adminTranslation(
    banp,
    'BaselineAdminNetworkPolicy',
    BASELINE_ADMIN_NETWORK_POLICY_PRIORITY,
    BASELINE_ADMIN_NETWORK_POLICY_TIER_PRIORITY,
    ctx,
  );
}
