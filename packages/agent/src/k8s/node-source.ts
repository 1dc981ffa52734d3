import { restartInformerOnError, trackListed } from '@antrea-ts/apis';
import { CoreV1Api, type KubeConfig, makeInformer, type V1Node } from '@kubernetes/client-node';
import type { Logger } from 'pino';

/** What the agent needs of a Node object. */
export interface NodeInfo {
  readonly name: string;
  /** spec.podCIDRs (or spec.podCIDR), IPv4 entries first as the API orders them. */
  readonly podCidrs: readonly string[];
  /** status.addresses InternalIP (IPv4), the tunnel destination. */
  readonly internalIp: string | undefined;
  /** The topology.kubernetes.io/zone label (AntreaProxy prefers endpoints hinted for it). */
  readonly zone?: string;
}

export function nodeInfo(node: V1Node): NodeInfo {
  const podCidrs = node.spec?.podCIDRs?.length
    ? node.spec.podCIDRs
    : node.spec?.podCIDR
      ? [node.spec.podCIDR]
      : [];
  const internalIp = node.status?.addresses?.find(
    (a) => a.type === 'InternalIP' && !a.address.includes(':'),
  )?.address;
  const zone = node.metadata?.labels?.['topology.kubernetes.io/zone'];
  return { name: node.metadata?.name ?? '', podCidrs, internalIp, ...(zone ? { zone } : {}) };
}

export interface NodeHandlers {
  upsert(node: NodeInfo): void;
  remove(name: string): void;
  /** The initial list has been delivered. */
  synced(names: readonly string[]): void;
}

/** A watch on Nodes; the real one is an informer, tests may feed events by hand. */
export interface NodeSource {
  start(handlers: NodeHandlers, signal?: AbortSignal): Promise<void>;
  get(name: string): NodeInfo | undefined;
  stop(): Promise<void>;
}

/** Nodes from kube-apiserver through a client-node informer (list, then watch with re-list on errors). */
export class InformerNodeSource implements NodeSource {
  private informer: ReturnType<typeof makeInformer<V1Node>> | undefined;
  private readonly log: Logger;

  constructor(
    private readonly kubeConfig: KubeConfig,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'node-informer' });
  }

  async start(handlers: NodeHandlers, signal?: AbortSignal): Promise<void> {
    if (this.informer) return;
    const api = this.kubeConfig.makeApiClient(CoreV1Api);
    // synced() waits for a list that was read, else "nothing known" would pass for "no other
    // Nodes" and the route controller would drop every peer's routes.
    const nodeList = trackListed(() => api.listNode());
    const informer = makeInformer<V1Node>(this.kubeConfig, '/api/v1/nodes', nodeList.list);
    this.informer = informer;
    let announced = false;
    const announce = (): void => {
      if (announced || !nodeList.listed() || this.informer !== informer) return;
      announced = true;
      handlers.synced(informer.list().map((n) => n.metadata?.name ?? ''));
    };
    informer.on('add', (n) => handlers.upsert(nodeInfo(n)));
    informer.on('update', (n) => handlers.upsert(nodeInfo(n)));
    informer.on('delete', (n) => handlers.remove(n.metadata?.name ?? ''));
    restartInformerOnError(informer, {
      active: () => this.informer === informer,
      onError: (err) => this.log.warn({ err: String(err) }, 'Node watch failed; restarting'),
      onRestarted: announce,
    });
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await informer.start();
    announce();
  }

  get(name: string): NodeInfo | undefined {
    const n = this.informer?.get(name);
    return n ? nodeInfo(n) : undefined;
  }

  async stop(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    await informer?.stop();
  }
}
