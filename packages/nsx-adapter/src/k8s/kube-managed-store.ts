import { CRD_KINDS, crdResourcePath } from '@antrea-ts/apis';
import { CustomObjectsApi, type KubeConfig, makeInformer } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { MANAGED_SELECTOR } from '../labels.js';
import { KubeHttp } from './kube-http.js';
import { type KubeObject, MANAGED_KINDS, type ManagedCrdStore, type ManagedKind } from './types.js';

type Informer = ReturnType<typeof makeInformer<KubeObject & { metadata: object }>>;

function rv(o: KubeObject | undefined): bigint {
  try {
    return BigInt(o?.metadata?.resourceVersion ?? '0');
  } catch {
    return 0n;
  }
}

/**
 * ManagedCrdStore over kube-apiserver: one label-selected informer per kind (so objects without the
 * managed-by label are never seen, let alone touched) and a keep-alive client for writes. Writes update
 * the cache at once so the next reconcile pass sees them even before the watch event arrives; the
 * newer resourceVersion wins (kube-apiserver resourceVersions are etcd revisions, numerically ordered).
 */
export class KubeManagedCrdStore implements ManagedCrdStore {
  private readonly api: CustomObjectsApi;
  private readonly cache = new Map<ManagedKind, Map<string, KubeObject>>();
  private readonly informers: Informer[] = [];
  private readonly log: Logger;
  private stopped = false;
  private http: KubeHttp | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    logger: Logger,
  ) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
    this.log = logger.child({ component: 'managed-crd-store' });
    for (const k of MANAGED_KINDS) this.cache.set(k, new Map());
  }

  async start(onChange: (kind: ManagedKind, name: string) => void, signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.http = await KubeHttp.fromKubeConfig(this.kubeConfig);
    await Promise.all(
      MANAGED_KINDS.map(async (kind) => {
        const info = CRD_KINDS[kind];
        const path = `/apis/${info.group}/${info.version}/${info.plural}`;
        const informer = makeInformer<KubeObject & { metadata: object }>(
          this.kubeConfig,
          path,
          () =>
            this.api.listClusterCustomObject({
              group: info.group,
              version: info.version,
              plural: info.plural,
              labelSelector: MANAGED_SELECTOR,
            }) as never,
          MANAGED_SELECTOR,
        );
        const upsert = (o: KubeObject) => {
          const name = o.metadata?.name ?? '';
          const m = this.cache.get(kind) as Map<string, KubeObject>;
          if (rv(o) >= rv(m.get(name))) m.set(name, o);
          onChange(kind, name);
        };
        informer.on('add', upsert);
        informer.on('update', upsert);
        informer.on('delete', (o) => {
          const name = o.metadata?.name ?? '';
          const m = this.cache.get(kind) as Map<string, KubeObject>;
          if (rv(o) >= rv(m.get(name))) m.delete(name);
          onChange(kind, name);
        });
        informer.on('error', (err) => {
          if (this.stopped) return;
          this.log.warn({ kind, err: String(err) }, 'watch failed; restarting');
          setTimeout(() => {
            if (!this.stopped) void informer.start().catch(() => undefined);
          }, 1000);
        });
        this.informers.push(informer);
        await informer.start();
      }),
    );
  }

  list(kind: ManagedKind): KubeObject[] {
    return [...(this.cache.get(kind)?.values() ?? [])];
  }

  get(kind: ManagedKind, name: string): KubeObject | undefined {
    return this.cache.get(kind)?.get(name);
  }

  private remember(kind: ManagedKind, o: KubeObject): void {
    const m = this.cache.get(kind) as Map<string, KubeObject>;
    const name = o.metadata?.name ?? '';
    if (rv(o) >= rv(m.get(name))) m.set(name, o);
  }

  private writer(): KubeHttp {
    if (!this.http) throw new TypeError('KubeManagedCrdStore used before start()');
    return this.http;
  }

  async create(kind: ManagedKind, obj: KubeObject): Promise<void> {
    this.remember(kind, await this.writer().request<KubeObject>('POST', crdResourcePath(kind), obj));
  }

  async replace(kind: ManagedKind, obj: KubeObject): Promise<void> {
    const name = obj.metadata?.name ?? '';
    this.remember(kind, await this.writer().request<KubeObject>('PUT', crdResourcePath(kind, { name }), obj));
  }

  async delete(kind: ManagedKind, name: string): Promise<void> {
    try {
      await this.writer().request('DELETE', crdResourcePath(kind, { name }));
    } catch (err) {
      if ((err as { code?: string }).code !== 'K8S_NOT_FOUND') throw err;
    }
    this.cache.get(kind)?.delete(name);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(this.informers.map((i) => i.stop().catch(() => undefined)));
    this.http?.close();
  }
}
