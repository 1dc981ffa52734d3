import type {
  CrdAppliedTo,
  CrdClusterNetworkPolicy,
  CrdNetworkPolicy,
  CrdNetworkPolicyPeer,
  CrdRule,
} from '../inputs.js';
import { BASELINE_TIER_NAME } from '../tiers.js';
import { ipBlockError } from './ip-block.js';
import { checkSelectorsLabels, qualifiedNameErrors } from './labels.js';
import { ALLOWED, deny, numFieldsSet, type ValidationResult } from './result.js';

// Admission checks of Antrea-native policies, as Antrea's validating webhook does them
// (pkg/controller/networkpolicy/validate.go antreaPolicyValidator), in the same order and with the
// same messages. Pure: cluster state arrives through PolicyValidationContext.

export interface PolicyValidationContext {
  tierExists(name: string): boolean;
  /** L7NetworkPolicy feature gate. */
  l7NetworkPolicyEnabled?: boolean;
}

const STATIC_TIER_NAMES = new Set([
  'Emergency',
  'SecurityOps',
  'NetworkOps',
  'Platform',
  'Application',
  'Baseline',
]);
/** CRD schema bounds of spec.priority. */
export const MIN_POLICY_PRIORITY = 1.0;
export const MAX_POLICY_PRIORITY = 10000.0;

function tierCheck(tier: string | undefined, ctx: PolicyValidationContext): string | undefined {
  if (!tier || STATIC_TIER_NAMES.has(tier)) return undefined;
  return ctx.tierExists(tier) ? undefined : `tier ${tier} does not exist`;
}

function passInBaseline(tier: string | undefined, rules: readonly CrdRule[]): string | undefined {
  if ((tier ?? '').toLowerCase() !== BASELINE_TIER_NAME) return undefined;
  return rules.some((r) => r.action === 'Pass')
    ? '`Pass` action should not be set for Baseline Tier policy rules'
    : undefined;
}

function uniqueRuleNames(ingress: readonly CrdRule[], egress: readonly CrdRule[]): boolean {
  const seen = new Set<string>();
  for (const r of [...ingress, ...egress]) {
    const name = r.name ?? '';
    if (seen.has(name)) return false;
    seen.add(name);
  }
  return true;
}

function appliedToCheck(
  ingress: readonly CrdRule[],
  egress: readonly CrdRule[],
  spec: readonly CrdAppliedTo[],
): string | undefined {
  const inSpec = spec.length > 0;
  const inRules = [...ingress, ...egress].filter((r) => (r.appliedTo?.length ?? 0) > 0).length;
  if (inSpec && inRules > 0) return 'appliedTo should not be set in both spec and rules';
  if (!inSpec && inRules === 0) return 'appliedTo needs to be set in either spec or rules';
  if (inRules > 0 && inRules !== ingress.length + egress.length)
    return 'appliedTo field should either be set in all rules or in none of them';
  const check = (
    ats: readonly CrdAppliedTo[],
    scope: 'policy' | 'ingress' | 'egress',
  ): string | undefined => {
    let services = 0;
    for (const at of ats) {
      const n = numFieldsSet(at);
      if (at.group && n > 1) return 'group cannot be set with other peers in appliedTo';
      if (at.nodeSelector && n > 1) return 'nodeSelector cannot be set with other peers in appliedTo';
      if (at.serviceAccount && n > 1) return 'serviceAccount cannot be set with other peers in appliedTo';
      if (at.service) {
        if (n > 1) return 'service cannot be set with other peers in appliedTo';
        if (scope === 'egress' || (scope === 'policy' && egress.length > 0))
          return 'egress rule cannot be applied to Services';
        services++;
      }
      const l = checkSelectorsLabels(
        at.podSelector,
        at.namespaceSelector,
        at.externalEntitySelector,
        at.nodeSelector,
      );
      if (l) return l;
    }
    if (services > 0 && services < ats.length)
      return 'a rule/policy cannot be applied to Services and other peers at the same time';
    return undefined;
  };
  return (
    check(spec, 'policy') ??
    ingress.map((r) => check(r.appliedTo ?? [], 'ingress')).find((x) => x !== undefined) ??
    egress.map((r) => check(r.appliedTo ?? [], 'egress')).find((x) => x !== undefined)
  );
}

function peersCheck(ingress: readonly CrdRule[], egress: readonly CrdRule[]): string | undefined {
  const check = (peers: readonly CrdNetworkPolicyPeer[]): string | undefined => {
    for (const p of peers) {
      if (p.namespaceSelector && p.namespaces)
        return 'namespaces and namespaceSelector cannot be set at the same time for a single NetworkPolicyPeer';
      if (p.namespaces) {
        if (numFieldsSet(p.namespaces) > 1)
          return 'only one matching criteria can be specified in a single peer namespaces field';
        for (const k of p.namespaces.sameLabels ?? [])
          if (qualifiedNameErrors(k).length > 0) return `Invalid label key in sameLabels rule: ${k}`;
      }
      if (p.ipBlock) {
        const e = ipBlockError(p.ipBlock);
        if (e) return e;
      }
      const n = numFieldsSet(p);
      if (p.group && n > 1) return 'group cannot be set with other peers in rules';
      if (p.serviceAccount && n > 1) return 'serviceAccount cannot be set with other peers in rules';
      if (p.nodeSelector && n > 1) return 'nodeSelector cannot be set with other peers in rules';
      const l = checkSelectorsLabels(
        p.podSelector,
        p.namespaceSelector,
        p.externalEntitySelector,
        p.nodeSelector,
      );
      if (l) return l;
    }
    return undefined;
  };
  for (const r of ingress) {
    const e = check(r.from ?? []);
    if (e) return e;
  }
  for (const r of egress) {
    if (r.toServices && ((r.to?.length ?? 0) > 0 || r.ports || r.protocols))
      return '`toServices` cannot be used with `to`, `ports` or `protocols`';
    const e = check(r.to ?? []);
    if (e) return e;
  }
  return undefined;
}

function serviceIngressCheck(spec: readonly CrdAppliedTo[], ingress: readonly CrdRule[]): string | undefined {
  const toService = (ats: readonly CrdAppliedTo[] | undefined) =>
    (ats?.length ?? 0) > 0 && ats![0]!.service !== undefined;
  for (const r of ingress) {
    if (!toService(spec) && !toService(r.appliedTo)) continue;
    for (const p of r.from ?? [])
      if (!p.ipBlock || numFieldsSet(p) > 1)
        return 'a rule/policy that is applied to Services can only use ipBlock to select workloads';
  }
  return undefined;
}

function l7Check(rules: readonly CrdRule[], ctx: PolicyValidationContext): string | undefined {
  for (const r of rules) {
    if (!r.l7Protocols || r.l7Protocols.length === 0) continue;
    if (!ctx.l7NetworkPolicyEnabled)
      return 'layer 7 protocols can only be used when L7NetworkPolicy is enabled';
    if (r.action !== 'Allow') return 'layer 7 protocols only support Allow';
    if (r.toServices) return 'layer 7 protocols can not be used with toServices';
    const hasHTTP = r.l7Protocols.some((l) => l.http);
    if (hasHTTP) {
      if ((r.ports ?? []).some((p) => p.protocol && p.protocol !== 'TCP'))
        return 'HTTP protocol can only be used when layer 4 protocol is TCP or unset';
      if ((r.protocols ?? []).length > 0) return 'HTTP protocol can not be used with protocol IGMP or ICMP';
    }
  }
  return undefined;
}

function portsCheck(rules: readonly CrdRule[]): string | undefined {
  for (const r of rules) {
    for (const p of r.ports ?? []) {
      if (p.endPort !== undefined && p.endPort !== null) {
        if (p.port === undefined || p.port === null)
          return 'if `endPort` is specified `port` must be specified';
        if (typeof p.port === 'string') return 'if `port` is a string `endPort` cannot be specified';
        if (p.endPort < p.port) return '`endPort` should be greater than or equal to `port`';
      }
      if (p.sourceEndPort !== undefined && p.sourceEndPort !== null) {
        if (p.sourcePort === undefined || p.sourcePort === null)
          return 'if `sourceEndPort` is specified `sourcePort` must be specified';
        if (p.sourceEndPort < p.sourcePort)
          return '`sourceEndPort` should be greater than or equal to `sourcePort`';
      }
    }
  }
  return undefined;
}

function fqdnCheck(egress: readonly CrdRule[]): string | undefined {
  for (const r of egress)
    for (const p of r.to ?? [])
      if (p.fqdn && !/^[A-Za-z0-9*.-]+$/.test(p.fqdn))
        return `invalid characters in egress rule fqdn field: ${p.fqdn}`;
  return undefined;
}

/**
 * Validates a ClusterNetworkPolicy or Antrea NetworkPolicy for CREATE/UPDATE. Rule names are
 * checked as stored, i.e. after the mutating webhook named unnamed rules.
 */
export function validateAntreaPolicy(
  policy: CrdClusterNetworkPolicy | CrdNetworkPolicy,
  ctx: PolicyValidationContext,
): ValidationResult {
  const spec = policy.spec;
  const ingress = spec.ingress ?? [];
  const egress = spec.egress ?? [];
  const appliedTo = spec.appliedTo ?? [];
  if (
    typeof spec.priority !== 'number' ||
    spec.priority < MIN_POLICY_PRIORITY ||
    spec.priority > MAX_POLICY_PRIORITY
  )
    return deny(
      `spec.priority must be between ${MIN_POLICY_PRIORITY} and ${MAX_POLICY_PRIORITY}, got ${spec.priority}`,
    );
  for (const r of [...ingress, ...egress])
    if (!r.action || !['Allow', 'Drop', 'Reject', 'Pass'].includes(r.action))
      return deny(
        `rule action must be one of Allow, Drop, Reject, Pass, got ${JSON.stringify(r.action ?? null)}`,
      );
  const reason =
    tierCheck(spec.tier, ctx) ??
    passInBaseline(spec.tier, [...ingress, ...egress]) ??
    (uniqueRuleNames(ingress, egress) ? undefined : 'rules names must be unique within the policy') ??
    appliedToCheck(ingress, egress, appliedTo) ??
    peersCheck(ingress, egress) ??
    serviceIngressCheck(appliedTo, ingress) ??
    fqdnCheck(egress) ??
    l7Check([...ingress, ...egress], ctx) ??
    portsCheck([...ingress, ...egress]);
  return reason ? deny(reason) : ALLOWED;
}
