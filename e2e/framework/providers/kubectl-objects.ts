// The object half of a real-cluster provider (lab or kind): Namespaces, labels and any object the
// cases apply, through kubectl. kubectl does discovery (any kind, CRDs included), server-side
// apply and JSON patch, which is all a case needs; one process per action costs ~0.1 s, noise next
// to realization and probing.
import type { JsonPatchOp, KubeObject, Labels } from '../case-types.js';
import { E2eError } from '../errors.js';
import type { ObjectRef } from '../provider.js';

/** Runs kubectl with these arguments (kubeconfig already chosen); resolves to stdout. */
export type Kubectl = (args: readonly string[], options?: { input?: string }) => Promise<string>;

export const FIELD_MANAGER = 'antrea-ts-e2e';

/** kubectl's fully qualified resource form, Kind.version.group; a core kind needs no group. */
export function resourceArg(apiVersion: string, kind: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? kind : `${kind}.${apiVersion.slice(i + 1)}.${apiVersion.slice(0, i)}`;
}

function nsArgs(namespace: string | undefined): string[] {
  return namespace ? ['-n', namespace] : [];
}

export interface KubectlObjectsOptions {
  /** How long a deletion may take (Namespaces included) before it is an error. */
  deleteTimeoutMs?: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface NamespaceCondition {
  type?: string;
  status?: string;
  message?: string;
}

export class KubectlObjects {
  /**
   * Namespaces this instance finalized itself: their content was gone but kube-controller-manager
   * could not finish because API discovery failed (see deleteNamespace). Reported, not hidden.
   */
  readonly forcedFinalizations: string[] = [];
  private readonly deleteTimeoutMs: number;
  private readonly pollMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    private readonly kubectl: Kubectl,
    opts: KubectlObjectsOptions = {},
  ) {
    this.deleteTimeoutMs = opts.deleteTimeoutMs ?? 120_000;
    this.pollMs = opts.pollMs ?? 250;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  private get waitTimeout(): string {
    return `${Math.ceil(this.deleteTimeoutMs / 1000)}s`;
  }

  private async call(what: string, args: readonly string[], input?: string): Promise<string> {
    try {
      return await this.kubectl(args, input === undefined ? {} : { input });
    } catch (cause) {
      throw new E2eError('E2E_PROVIDER', `${what}: ${(cause as Error).message}`, { cause });
    }
  }

  async exists(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
  ): Promise<boolean> {
    const out = await this.call(`get ${kind} ${name}`, [
      'get',
      resourceArg(apiVersion, kind),
      name,
      ...nsArgs(namespace),
      '--ignore-not-found',
      '-o',
      'name',
    ]);
    return out.trim() !== '';
  }

  /** Creates the Namespace or replaces its labels; says whether it was created. */
  async createNamespace(name: string, labels: Labels): Promise<{ created: boolean }> {
    const existed = await this.exists('v1', 'Namespace', undefined, name);
    if (existed) await this.setLabels({ kind: 'Namespace', name }, labels);
    else await this.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    return { created: !existed };
  }

  /**
   * Deletes and waits until it is gone. kube-controller-manager deletes the content, then removes
   * the `kubernetes` finalizer, but only with complete API discovery: while an aggregated API
   * (Antrea's controlplane/stats/system groups) is stale in discovery it never finalizes, and the
   * next case could not recreate the Namespace. Once the controller reports the content gone and
   * only discovery failing, this finalizes through the finalize subresource and records it in
   * forcedFinalizations. `wait: false` only requests the deletion (kube-controller-manager takes
   * ~5 s even for an empty Namespace on the lab).
   */
  async deleteNamespace(name: string, options: { wait?: boolean } = {}): Promise<void> {
    await this.call(`delete Namespace ${name}`, [
      'delete',
      'namespace',
      name,
      '--ignore-not-found',
      '--wait=false',
    ]);
    if (options.wait === false) return;
    const deadline = Date.now() + this.deleteTimeoutMs;
    let finalized = false;
    for (;;) {
      const ns = await this.get({ apiVersion: 'v1', kind: 'Namespace', name });
      if (!ns) return;
      const conditions = (
        (ns.status as { conditions?: NamespaceCondition[] } | undefined)?.conditions ?? []
      ).filter((c) => c.status === 'True' || c.type === 'NamespaceContentRemaining');
      const is = (type: string, status: string) =>
        conditions.some((c) => c.type === type && c.status === status);
      if (
        !finalized &&
        is('NamespaceContentRemaining', 'False') &&
        is('NamespaceDeletionDiscoveryFailure', 'True')
      ) {
        await this.call(
          `finalize Namespace ${name}`,
          ['replace', '--raw', `/api/v1/namespaces/${name}/finalize`, '-f', '-'],
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Namespace',
            metadata: { name },
            spec: { finalizers: [] },
          }),
        );
        finalized = true;
        this.forcedFinalizations.push(name);
      }
      if (Date.now() > deadline)
        throw new E2eError(
          'E2E_PROVIDER',
          `Namespace ${name} still terminating after ${this.deleteTimeoutMs} ms: ${conditions.map((c) => `${c.type}: ${c.message}`).join('; ')}`,
        );
      await this.sleep(this.pollMs);
    }
  }

  async apply(object: KubeObject): Promise<void> {
    await this.call(
      `apply ${object.kind} ${object.metadata.name}`,
      ['apply', '--server-side', '--force-conflicts', `--field-manager=${FIELD_MANAGER}`, '-f', '-'],
      JSON.stringify(object),
    );
  }

  async delete(ref: ObjectRef): Promise<void> {
    await this.call(`delete ${ref.kind} ${ref.name}`, [
      'delete',
      resourceArg(ref.apiVersion, ref.kind),
      ref.name,
      ...nsArgs(ref.namespace),
      '--ignore-not-found',
      '--wait=true',
      `--timeout=${this.waitTimeout}`,
    ]);
  }

  async patch(ref: ObjectRef, ops: readonly JsonPatchOp[]): Promise<void> {
    await this.call(`patch ${ref.kind} ${ref.name}`, [
      'patch',
      resourceArg(ref.apiVersion, ref.kind),
      ref.name,
      ...nsArgs(ref.namespace),
      '--type=json',
      '-p',
      JSON.stringify(ops),
    ]);
  }

  /** Replaces the whole label map ("add" replaces an existing member and works when absent). */
  setLabels(
    ref: { kind: 'Namespace' | 'Pod'; namespace?: string; name: string },
    labels: Labels,
  ): Promise<void> {
    return this.patch({ apiVersion: 'v1', ...ref }, [{ op: 'add', path: '/metadata/labels', value: labels }]);
  }

  /** The object as the API server has it, or undefined. */
  async get(ref: ObjectRef): Promise<KubeObject | undefined> {
    const out = await this.call(`get ${ref.kind} ${ref.name}`, [
      'get',
      resourceArg(ref.apiVersion, ref.kind),
      ref.name,
      ...nsArgs(ref.namespace),
      '--ignore-not-found',
      '-o',
      'json',
    ]);
    return out.trim() ? (JSON.parse(out) as KubeObject) : undefined;
  }
}
