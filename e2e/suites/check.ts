// What an e2e check is, and the helpers checks share. A check is a plain async function over a
// ClusterProvider that throws (node:assert) on failure, so the same checks run under vitest on the
// lab (e2e/lab-suites.test.ts) and from the CLI on any provider (npm run e2e:suites -- -p kind).
import { randomBytes } from 'node:crypto';
import type { ClusterProvider, PodRef, PodSpec, ProbeOutcome, ProbeTarget } from '../framework/provider.js';
import { settle } from '../framework/settle.js';

/** Optional provider methods a check may need (see provider.ts). */
export type Capability =
  | 'listNodes'
  | 'addNode'
  | 'removeNode'
  | 'restartComponent'
  | 'exec'
  | 'antctl'
  | 'probeAddresses'
  | 'externalEndpoint';

export interface CheckContext {
  provider: ClusterProvider;
  /** Progress lines for a person (the CLI prints them; tests may drop them). */
  log(line: string): void;
  /**
   * When present, checks only request their Namespace's deletion (after their Pods are gone) and
   * add its name here; finishNamespaceDeletions waits for all of them at the end of the run. Saves
   * the ~5 s kube-controller-manager takes per Namespace, per check.
   */
  deleting?: string[];
}

export interface E2eCheck {
  suite: string;
  name: string;
  needs: readonly Capability[];
  /** Generous: two shared cores, Pods made one CNI ADD at a time per Node. */
  timeoutMs: number;
  run(ctx: CheckContext): Promise<void>;
}

/** The capabilities of `check` that `provider` lacks: the check is skipped when any are. */
export function missingCapabilities(provider: ClusterProvider, check: E2eCheck): Capability[] {
  return check.needs.filter((c) => typeof provider[c] !== 'function');
}

/** A Namespace name no earlier run left behind: `<prefix>-<6 hex>`. */
export function uniqueNamespace(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * Runs `fn` with a fresh Namespace and deletes it (with its Pods) afterwards, also on failure:
 * waiting until it is gone, or leaving that to finishNamespaceDeletions (see CheckContext).
 */
export async function withNamespace<T>(
  ctx: CheckContext,
  prefix: string,
  fn: (namespace: string, provider: ClusterProvider) => Promise<T>,
): Promise<T> {
  const p = ctx.provider;
  const ns = uniqueNamespace(prefix);
  await p.createNamespace(ns, { 'e2e.antrea-ts.io/suite': prefix });
  try {
    return await fn(ns, p);
  } finally {
    if (ctx.deleting) {
      ctx.deleting.push(ns);
      await p.deleteNamespace(ns, { wait: false });
    } else await p.deleteNamespace(ns);
  }
}

/** Waits until every Namespace in ctx.deleting is gone (all at once), then empties the list. */
export async function finishNamespaceDeletions(ctx: CheckContext): Promise<void> {
  const names = ctx.deleting?.splice(0) ?? [];
  await Promise.all(names.map((ns) => ctx.provider.deleteNamespace(ns)));
}

/** A Pod serving TCP and UDP on port 80 (and nothing on 81, the closed port checks use). */
export function servingPod(namespace: string, name: string, node?: string): PodSpec {
  return {
    namespace,
    name,
    labels: { app: name },
    ...(node ? { node } : {}),
    ports: [{ name: 'serve-80', port: 80, protocol: 'TCP' }],
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Calls `attempt` until `ok` accepts its result or `timeoutMs` passes; returns the last result
 * either way, so the caller's assertion shows what was seen. Realization is eventual everywhere.
 */
export function eventually<T>(
  attempt: () => Promise<T>,
  ok: (v: T) => boolean,
  { timeoutMs = 30_000, intervalMs = 500 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  return settle(attempt, ok, { timeoutMs, intervalMs });
}

/** Probes from one Pod to many, with the batch form when the provider has it. */
export function probeFrom(
  provider: ClusterProvider,
  from: PodRef,
  targets: readonly ProbeTarget[],
  timeoutMs = 2_000,
): Promise<ProbeOutcome[]> {
  if (provider.probeMany) return provider.probeMany(from, targets, timeoutMs);
  return Promise.all(targets.map((t) => provider.probe(from, t.to, t.port, t.protocol, timeoutMs)));
}

/** `label: outcome` per target, for assertions whose failure message says which cell differed. */
export function labelled(
  targets: readonly ProbeTarget[],
  outcomes: readonly ProbeOutcome[],
): Record<string, ProbeOutcome> {
  return Object.fromEntries(
    targets.map((t, i) => [`${t.to.namespace}/${t.to.name} ${t.protocol}/${t.port}`, outcomes[i]!]),
  );
}

/** Probes until every target answers as `want` (or the time is up); the last outcomes, labelled. */
export async function probeUntil(
  provider: ClusterProvider,
  from: PodRef,
  targets: readonly ProbeTarget[],
  want: ProbeOutcome,
  timeoutMs = 30_000,
): Promise<Record<string, ProbeOutcome>> {
  const out = await eventually(
    () => probeFrom(provider, from, targets),
    (o) => o.every((x) => x === want),
    { timeoutMs },
  );
  return labelled(targets, out);
}

/** The same record with every value `want`: what probeUntil returns when all went well. */
export function all(targets: readonly ProbeTarget[], want: ProbeOutcome): Record<string, ProbeOutcome> {
  return labelled(
    targets,
    targets.map(() => want),
  );
}

/** TCP and UDP on port 80 of each Pod. */
export function port80(...pods: PodRef[]): ProbeTarget[] {
  return pods.flatMap((to) => [
    { to, port: 80, protocol: 'TCP' as const },
    { to, port: 80, protocol: 'UDP' as const },
  ]);
}
