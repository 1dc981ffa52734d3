import type { Egress, ExternalIPPool } from '@antrea-ts/apis';
import { validateEgress, validateExternalIPPool } from '../egress/validation.js';
import type { CrdClusterNetworkPolicy, CrdGroup, CrdNetworkPolicy, CrdTier } from '../inputs.js';
import { validateGroup } from '../validation/group.js';
import { validateAntreaPolicy } from '../validation/policy.js';
import type { ValidationResult } from '../validation/result.js';
import { validateTierCreate, validateTierDelete, validateTierUpdate } from '../validation/tier.js';
import type { AdmissionDecision, AdmissionRequest } from './admission.js';
import type { AdmissionState } from './state.js';

export interface AdmissionValidatorOptions {
  /** Namespace and ServiceAccount of antrea-controller: it may change static Tiers' priorities. */
  controllerServiceAccount: { namespace: string; name: string };
  l7NetworkPolicyEnabled?: boolean;
  clusterNetworkPolicyGate?: boolean;
}

const CRD_GROUP = 'crd.antrea.io';
const CRD_VERSION = 'v1beta1';

function decision(r: ValidationResult): AdmissionDecision {
  return { allowed: r.allowed, message: r.reason, warnings: r.warnings };
}

function isObject(v: unknown): v is { metadata?: object; spec?: object } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The decoded object with the parts every check relies on (metadata, spec) present. */
function decode<T>(raw: unknown): T {
  if (raw === undefined || raw === null) return { metadata: {}, spec: {} } as T;
  if (!isObject(raw)) throw new Error('json: cannot unmarshal the object: not a JSON object');
  return { ...raw, metadata: raw.metadata ?? {}, spec: raw.spec ?? {} } as T;
}

/** Go's %q for the strings at hand (JSON quoting agrees with it for printable text). */
const quote = (s: string) => JSON.stringify(s);

/**
 * Antrea's checkLogLabel: rules of a policy applied to Nodes log with labels of at most 12 bytes
 * in kernel logs; longer ones are admitted with a warning.
 */
export function logLabelWarnings(policy: CrdClusterNetworkPolicy | CrdNetworkPolicy): string[] {
  const spec = policy.spec;
  if (!(spec.appliedTo ?? []).some((a) => a.nodeSelector)) return [];
  const out: string[] = [];
  for (const r of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) {
    const label = r.logLabel ?? '';
    if (r.enableLogging && Buffer.byteLength(label) > 12)
      out.push(
        `LogLabels for Node NetworkPolicies are limited to 12 characters, but the label ${quote(label)} for policy rule ${quote(r.name ?? '')} exceeds the limit and will be truncated in kernel logs`,
      );
  }
  return out;
}

/**
 * Antrea's NetworkPolicyValidator.Validate: dispatch on the request's group/version/kind and
 * operation, checks from ../validation over the state the informers keep. A kind it does not know
 * is denied without a message, as Antrea's does.
 */
export class AdmissionValidator {
  readonly #state: AdmissionState;
  readonly #opts: AdmissionValidatorOptions;

  constructor(state: AdmissionState, options: AdmissionValidatorOptions) {
    this.#state = state;
    this.#opts = options;
  }

  validate(req: AdmissionRequest): AdmissionDecision {
    const { group, version, kind } = req.kind;
    if (group !== CRD_GROUP || version !== CRD_VERSION) return { allowed: false };
    switch (kind) {
      case 'Tier':
        return this.#tier(req);
      case 'ClusterNetworkPolicy':
      case 'NetworkPolicy':
        return this.#policy(req);
      case 'ClusterGroup':
      case 'Group':
        return this.#group(req, kind === 'ClusterGroup');
      case 'Egress':
      case 'ExternalIPPool':
        return this.#egress(req, kind);
      default:
        return { allowed: false };
    }
  }

  #tier(req: AdmissionRequest): AdmissionDecision {
    const cur = decode<CrdTier>(req.object);
    const old = decode<CrdTier>(req.oldObject);
    switch (req.operation) {
      case 'CREATE':
        return decision(
          validateTierCreate(cur, {
            existing: [...this.#state.tiers.values()].filter((t) => t.metadata.name !== cur.metadata.name),
            clusterNetworkPolicyGate: this.#opts.clusterNetworkPolicyGate ?? false,
          }),
        );
      case 'UPDATE': {
        const sa = this.#opts.controllerServiceAccount;
        const byController = req.userInfo?.username === `system:serviceaccount:${sa.namespace}:${sa.name}`;
        return decision(validateTierUpdate(cur, old, { byController }));
      }
      case 'DELETE':
        return decision(validateTierDelete(old, this.#state.tierReferences(old.metadata.name ?? '')));
      default:
        return { allowed: true };
    }
  }

  #policy(req: AdmissionRequest): AdmissionDecision {
    if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return { allowed: true };
    const cur = decode<CrdClusterNetworkPolicy | CrdNetworkPolicy>(req.object);
    const r = validateAntreaPolicy(cur, {
      tierExists: (name) => this.#state.tiers.has(name),
      l7NetworkPolicyEnabled: this.#opts.l7NetworkPolicyEnabled ?? false,
    });
    if (!r.allowed) return decision(r);
    return { allowed: true, warnings: [...r.warnings, ...logLabelWarnings(cur)] };
  }

  #egress(req: AdmissionRequest, kind: 'Egress' | 'ExternalIPPool'): AdmissionDecision {
    if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return { allowed: true };
    const old = req.operation === 'UPDATE' ? req.oldObject : undefined;
    if (kind === 'ExternalIPPool') {
      return decision(
        validateExternalIPPool(
          decode<ExternalIPPool>(req.object),
          this.#state.externalIPPools.values(),
          old ? decode<ExternalIPPool>(old) : undefined,
        ),
      );
    }
    return decision(
      validateEgress(
        decode<Egress>(req.object),
        (name) => this.#state.externalIPPools.get(name),
        old ? decode<Egress>(old) : undefined,
      ),
    );
  }

  #group(req: AdmissionRequest, clusterScoped: boolean): AdmissionDecision {
    if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return { allowed: true };
    const cur = decode<CrdGroup>(req.object);
    // A Group's namespace comes from the request when the object omits it (CREATE).
    if (!clusterScoped && !cur.metadata.namespace && req.namespace)
      cur.metadata = { ...cur.metadata, namespace: req.namespace };
    if (clusterScoped && cur.metadata.namespace) cur.metadata = { ...cur.metadata, namespace: undefined };
    const ns = clusterScoped ? undefined : cur.metadata.namespace;
    const map = clusterScoped ? this.#state.clusterGroups : this.#state.groups;
    const keyOf = (name: string) => (ns ? `${ns}/${name}` : name);
    return decision(
      validateGroup(cur, {
        get: (name) => map.get(keyOf(name)),
        parentsOf: (name) => {
          const parents: string[] = [];
          for (const g of map.values()) {
            if ((g.metadata.namespace ?? undefined) !== ns) continue;
            if (g.metadata.name === cur.metadata.name) continue;
            if ((g.spec.childGroups ?? []).includes(name)) parents.push(g.metadata.name ?? '');
          }
          return parents;
        },
      }),
    );
  }
}
