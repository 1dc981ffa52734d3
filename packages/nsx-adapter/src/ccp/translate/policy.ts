import {
  type AppliedTo,
  type ClusterNetworkPolicy,
  CRD_KINDS,
  type PolicyPeer,
  type PolicyRule,
  type PolicyRuleAction,
} from '@antrea-ts/apis';
import { TranslationError } from '../../errors.js';
import { NSX_PATH_ANNOTATION, NSX_REVISION_ANNOTATION } from '../../labels.js';
import type { NsxRule, NsxSecurityPolicy, NsxService } from '../../nsx/types.js';
import type { TranslatedGroup } from './groups.js';
import { ipEntryToCidrs } from './ip.js';
import { managedMeta } from './meta.js';
import { policyPriority } from './priority.js';
import { translateRuleServices } from './services.js';
import { isNsxCategory, SUPPORTED_CATEGORIES, tierName } from './tiers.js';

const ACTIONS: Record<string, PolicyRuleAction> = { ALLOW: 'Allow', DROP: 'Drop', REJECT: 'Reject' };

/** What translating a policy needs besides the policy itself. */
export interface PolicyContext {
  /** Translated groups by NSX path; a TranslationError when the group could not be translated. */
  groups: ReadonlyMap<string, TranslatedGroup | TranslationError>;
  services: ReadonlyMap<string, NsxService>;
  /** Rank among policies of the same category with the same sequence number (see priority.ts). */
  tieRank: number;
}

export interface TranslatedPolicy {
  policy: ClusterNetworkPolicy;
  /** NSX group paths the ACNP names (their ClusterGroups must exist). */
  groupPaths: string[];
}

function isAny(list: readonly string[] | undefined): boolean {
  return list === undefined || list.length === 0 || (list.length === 1 && list[0] === 'ANY');
}

/** Rules in NSX order: sequence_number, then rule_id (NSX's own tie-break is unspecified). */
export function sortRules(rules: readonly NsxRule[]): NsxRule[] {
  return [...rules].sort(
    (a, b) =>
      (a.sequence_number ?? 0) - (b.sequence_number ?? 0) ||
      (a.rule_id ?? 0) - (b.rule_id ?? 0) ||
      a.id.localeCompare(b.id),
  );
}

class Builder {
  readonly groupPaths = new Set<string>();
  constructor(readonly ctx: PolicyContext) {}

  group(path: string, where: string): TranslatedGroup {
    const g = this.ctx.groups.get(path);
    if (!g) throw new TranslationError('TRANSLATION_INVALID', where, `${where}: group ${path} not found`);
    if (g instanceof TranslationError)
      throw new TranslationError(
        g.code as TranslationError['code'] & ('TRANSLATION_UNSUPPORTED' | 'TRANSLATION_INVALID'),
        where,
        g.message,
      );
    this.groupPaths.add(path);
    return g;
  }

  /** source/destination entries -> peers: groups by name, IP literals as ipBlocks. */
  peers(list: readonly string[], where: string): PolicyPeer[] {
    const out: PolicyPeer[] = [];
    for (const entry of list) {
      if (entry.startsWith('/')) {
        out.push({ group: this.group(entry, where).name });
        continue;
      }
      const cidrs = ipEntryToCidrs(entry);
      if (!cidrs)
        throw new TranslationError(
          'TRANSLATION_INVALID',
          where,
          `${where}: "${entry}" is not a group path or IP address`,
        );
      for (const cidr of cidrs) out.push({ ipBlock: { cidr } });
    }
    return out;
  }

  /** Groups in an applied-to position: no IP literals, no groups with IP members (NSX restriction too). */
  appliedTo(list: readonly string[], where: string): AppliedTo[] {
    return list.map((entry) => {
      if (!entry.startsWith('/')) {
        throw new TranslationError(
          'TRANSLATION_UNSUPPORTED',
          where,
          `${where}: IP address "${entry}" in applied-to is not supported for Antrea clusters`,
        );
      }
      const g = this.group(entry, where);
      if (g.hasIpBlocks) {
        throw new TranslationError(
          'TRANSLATION_UNSUPPORTED',
          where,
          `${where}: group ${entry} with IP addresses in applied-to is not supported for Antrea clusters`,
        );
      }
      return { group: g.name };
    });
  }
}

function ruleName(rule: NsxRule, suffix: string): string {
  const base = rule.rule_id !== undefined ? String(rule.rule_id) : rule.id;
  return suffix === '' ? base : `${base}-${suffix}`;
}

/**
 * One NSX rule -> zero, one or two Antrea rules.
 *
 * An NSX rule matches traffic from sources to destinations and is enforced on the applied-to
 * workloads (policy scope, else rule scope, else every Pod); direction IN enforces it where traffic
 * enters, OUT where it leaves, IN_OUT both. In Antrea terms:
 * - the ingress part protects the receivers: appliedTo = destinations (or the scope when the
 *   destinations are ANY), from = sources;
 * - the egress part protects the senders: appliedTo = sources (or the scope), to = destinations.
 * When a side and the scope are both set, the receivers would be their intersection, which Antrea
 * cannot express: that is a translation error. The NSX UI never produces it for Antrea clusters
 * (setting sources forces IN, setting destinations forces OUT; research notes §3). IN_OUT gives one
 * rule per direction, named "<rule_id>-in" and "<rule_id>-out"; single-direction rules are named
 * "<rule_id>" like the real adapter's.
 */
function translateRule(
  rule: NsxRule,
  policyScoped: boolean,
  scope: readonly string[],
  b: Builder,
): { ingress?: PolicyRule; egress?: PolicyRule } {
  const where = `rule ${rule.path}`;
  const unsupported = (what: string) =>
    new TranslationError(
      'TRANSLATION_UNSUPPORTED',
      rule.path,
      `${where}: ${what} is not supported for Antrea clusters`,
    );
  const action = ACTIONS[rule.action ?? 'ALLOW'];
  if (!action) throw unsupported(`action ${String(rule.action)}`);
  if (!isAny(rule.profiles)) throw unsupported('context profiles (L7 / App-ID / FQDN)');
  if (rule.sources_excluded || rule.destinations_excluded) throw unsupported('negated sources/destinations');
  if (rule.ip_protocol !== undefined && rule.ip_protocol !== 'IPV4_IPV6')
    throw unsupported(`ip_protocol ${rule.ip_protocol}`);
  const direction = rule.direction ?? 'IN_OUT';
  const svc = translateRuleServices(rule, b.ctx.services);
  const srcAny = isAny(rule.source_groups);
  const dstAny = isAny(rule.destination_groups);
  const scopeAny = scope.length === 0;

  const part = (side: 'in' | 'out', split: boolean): PolicyRule => {
    const targetList = side === 'in' ? rule.destination_groups : rule.source_groups;
    const targetAny = side === 'in' ? dstAny : srcAny;
    if (!targetAny && !scopeAny) {
      throw unsupported(
        `${side === 'in' ? 'destinations' : 'sources'} together with applied-to (their intersection) on ${side === 'in' ? 'ingress' : 'egress'}`,
      );
    }
    const r: PolicyRule = {
      name: ruleName(rule, split ? side : ''),
      action,
      enableLogging: rule.logged ?? false,
    };
    if (!policyScoped) {
      r.appliedTo = !targetAny
        ? b.appliedTo(targetList ?? [], where)
        : scopeAny
          ? [{ podSelector: {} }]
          : b.appliedTo(scope, where);
    } else if (!targetAny) {
      // The policy-level appliedTo is the target; a side narrowing it would be the intersection again.
      throw unsupported(
        `${side === 'in' ? 'destinations' : 'sources'} together with a policy applied-to on ${side === 'in' ? 'ingress' : 'egress'}`,
      );
    }
    if (svc.ports.length > 0) r.ports = svc.ports;
    if (svc.protocols.length > 0) r.protocols = svc.protocols;
    const peerList = side === 'in' ? rule.source_groups : rule.destination_groups;
    const peerAny = side === 'in' ? srcAny : dstAny;
    if (!peerAny) r[side === 'in' ? 'from' : 'to'] = b.peers(peerList ?? [], where);
    return r;
  };
  if (direction === 'IN') return { ingress: part('in', false) };
  if (direction === 'OUT') return { egress: part('out', false) };
  if (direction !== 'IN_OUT') throw unsupported(`direction ${String(direction)}`);
  return { ingress: part('in', true), egress: part('out', true) };
}

/**
 * NSX security policy -> one ClusterNetworkPolicy named by the policy's unique_id, in the Tier of
 * its category, with rules in NSX sequence order (disabled rules skipped). Throws a
 * TranslationError (collecting every rule's problem) when anything cannot be expressed exactly.
 */
export function translatePolicy(policy: NsxSecurityPolicy, ctx: PolicyContext): TranslatedPolicy {
  const path = policy.path;
  const errors: string[] = [];
  let invalid = false;
  const fail = (msg: string) => errors.push(`policy ${path}: ${msg}`);
  const category = policy.category ?? 'Application';
  if (!isNsxCategory(category) || !SUPPORTED_CATEGORIES.has(category)) {
    fail(`category ${category} is not supported for Antrea clusters`);
  }
  if (policy.stateful === false) fail('stateless policies are not supported for Antrea clusters');
  if (policy.tcp_strict === true) fail('tcp_strict is not supported for Antrea clusters');
  if (policy.scheduler_path) fail('time-based scheduling is not supported for Antrea clusters');
  if (policy.connectivity_preference !== undefined && policy.connectivity_preference !== 'NONE') {
    fail(
      `connectivity_preference ${policy.connectivity_preference} (implicit default rule) is not supported for Antrea clusters`,
    );
  }
  if (!policy.unique_id) {
    invalid = true;
    fail('no unique_id');
  }
  const b = new Builder(ctx);
  const policyScoped = !isAny(policy.scope);
  let specAppliedTo: AppliedTo[] | undefined;
  if (policyScoped) {
    try {
      specAppliedTo = b.appliedTo(policy.scope ?? [], `policy ${path}`);
    } catch (err) {
      if (!(err instanceof TranslationError)) throw err;
      invalid ||= err.code === 'TRANSLATION_INVALID';
      errors.push(...err.details);
    }
  }
  const ingress: PolicyRule[] = [];
  const egress: PolicyRule[] = [];
  for (const rule of sortRules(policy.rules ?? [])) {
    if (rule.disabled) continue;
    try {
      const ruleScope = isAny(rule.scope) ? [] : (rule.scope ?? []);
      const r = translateRule(rule, policyScoped, policyScoped ? [] : ruleScope, b);
      if (r.ingress) ingress.push(r.ingress);
      if (r.egress) egress.push(r.egress);
    } catch (err) {
      if (!(err instanceof TranslationError)) throw err;
      invalid ||= err.code === 'TRANSLATION_INVALID';
      errors.push(...err.details);
    }
  }
  if (errors.length > 0) {
    throw new TranslationError(invalid ? 'TRANSLATION_INVALID' : 'TRANSLATION_UNSUPPORTED', path, errors);
  }
  const spec: ClusterNetworkPolicy['spec'] = {
    tier: tierName(category as 'Application'),
    priority: policyPriority(policy.sequence_number ?? 0, ctx.tieRank),
  };
  // Antrea needs an appliedTo somewhere; a policy whose rules are all disabled applies to every Pod
  // and matches nothing, exactly like the empty NSX section.
  if (specAppliedTo) spec.appliedTo = specAppliedTo;
  else if (ingress.length === 0 && egress.length === 0) spec.appliedTo = [{ podSelector: {} }];
  if (ingress.length > 0) spec.ingress = ingress;
  if (egress.length > 0) spec.egress = egress;
  return {
    policy: {
      apiVersion: CRD_KINDS.ClusterNetworkPolicy.apiVersion as 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: managedMeta(policy.unique_id as string, policy.display_name ?? policy.id, {
        [NSX_PATH_ANNOTATION]: path,
        [NSX_REVISION_ANNOTATION]: String(policy._revision ?? 0),
      }),
      spec,
    },
    groupPaths: [...b.groupPaths],
  };
}
