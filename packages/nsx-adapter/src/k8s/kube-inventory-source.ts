import { CoreV1Api, type KubeConfig, makeInformer, NetworkingV1Api } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { INVENTORY_KINDS, type InventoryKind } from '../mp/inventory.js';
import type { KubeObject } from './types.js';

/** The Kubernetes objects the MP adapter reports, as a watched cache. */
export interface InventorySource {
  /** Resolves after the initial lists; `onChange` fires on every later add/update/delete. */
  start(onChange: (kind: InventoryKind) => void, signal?: AbortSignal): Promise<void>;
  list(kind: InventoryKind): KubeObject[];
  stop(): Promise<void>;
}

type Informer = ReturnType<typeof makeInformer<KubeObject & { metadata: object }>>;

/** InventorySource over kube-apiserver: one client-node informer per kind (list + watch, re-list on error). */
export class KubeInventorySource implements InventorySource {
  private readonly informers = new Map<InventoryKind, Informer>();
  private readonly log: Logger;
  private stopped = false;

  constructor(
    private readonly kubeConfig: KubeConfig,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'inventory-source' });
  }

  async start(onChange: (kind: InventoryKind) => void, signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const core = this.kubeConfig.makeApiClient(CoreV1Api);
    const net = this.kubeConfig.makeApiClient(NetworkingV1Api);
    const sources: Record<InventoryKind, [string, () => Promise<unknown>]> = {
      Namespace: ['/api/v1/namespaces', () => core.listNamespace()],
      Pod: ['/api/v1/pods', () => core.listPodForAllNamespaces()],
      Service: ['/api/v1/services', () => core.listServiceForAllNamespaces()],
      Node: ['/api/v1/nodes', () => core.listNode()],
      NetworkPolicy: [
        '/apis/networking.k8s.io/v1/networkpolicies',
        () => net.listNetworkPolicyForAllNamespaces(),
      ],
      Ingress: ['/apis/networking.k8s.io/v1/ingresses', () => net.listIngressForAllNamespaces()],
    };
    await Promise.all(
      INVENTORY_KINDS.map(async (kind) => {
        const [path, list] = sources[kind];
        const informer = makeInformer<KubeObject & { metadata: object }>(
          this.kubeConfig,
          path,
          list as never,
        );
        for (const ev of ['add', 'update', 'delete'] as const) informer.on(ev, () => onChange(kind));
        informer.on('error', (err) => {
          if (this.stopped) return;
          this.log.warn({ kind, err: String(err) }, 'watch failed; restarting');
          setTimeout(() => {
            if (!this.stopped) void informer.start().catch(() => undefined);
          }, 1000);
        });
        this.informers.set(kind, informer);
        await informer.start();
      }),
    );
  }

  list(kind: InventoryKind): KubeObject[] {
    return [...(this.informers.get(kind)?.list() ?? [])];
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all([...this.informers.values()].map((i) => i.stop().catch(() => undefined)));
  }
}
