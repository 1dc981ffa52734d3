import {
  CRD_KINDS,
  type CrdInformer,
  crdInformer,
  type Egress,
  type EgressStatus,
  type ExternalIPPool,
  restartInformerOnError,
} from '@antrea-ts/apis';
import {
  CoreV1Api,
  CustomObjectsApi,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
  type V1Node,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { maxEgressIpsOfNode } from './egress-placement.js';
import type { EgressNodeInfo, EgressSource } from './egress-source.js';

/** A Node as pool IP placement sees it (Egress and ServiceExternalIP). */
export function poolNodeInfo(n: V1Node): EgressNodeInfo {
  return {
    name: n.metadata?.name ?? '',
    labels: n.metadata?.labels ?? {},
    ready: (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
    internalIp: n.status?.addresses?.find((a) => a.type === 'InternalIP' && !a.address.includes(':'))
      ?.address,
    maxEgressIps: maxEgressIpsOfNode(n.metadata?.annotations),
  };
}

/** EgressSource on kube-apiserver: three list-watch informers and the Egress status subresource. */
export class KubeEgressSource implements EgressSource {
  readonly #api: CustomObjectsApi;
  readonly #log: Logger;
  #egresses: CrdInformer<Egress> | undefined;
  #pools: CrdInformer<ExternalIPPool> | undefined;
  #nodes: (Informer<V1Node> & ObjectCache<V1Node>) | undefined;
  #active = false;

  constructor(
    private readonly kc: KubeConfig,
    logger: Logger,
  ) {
    this.#api = kc.makeApiClient(CustomObjectsApi);
    this.#log = logger.child({ component: 'egress-source' });
  }

  async start(changed: () => void): Promise<void> {
    this.#active = true;
    const core = this.kc.makeApiClient(CoreV1Api);
    this.#egresses = crdInformer<Egress>(this.kc, CRD_KINDS.Egress);
    this.#pools = crdInformer<ExternalIPPool>(this.kc, CRD_KINDS.ExternalIPPool);
    this.#nodes = makeInformer<V1Node>(this.kc, '/api/v1/nodes', () => core.listNode());
    const informers: Array<Informer<KubernetesObject>> = [
      this.#egresses as Informer<KubernetesObject>,
      this.#pools as Informer<KubernetesObject>,
      this.#nodes as Informer<KubernetesObject>,
    ];
    for (const informer of informers) {
      for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, () => changed());
      restartInformerOnError(informer, {
        active: () => this.#active,
        onError: (err) => this.#log.warn({ err: String(err) }, 'Egress watch failed; restarting'),
        onRestarted: changed,
      });
    }
    await Promise.all(informers.map((i) => i.start()));
  }

  async stop(): Promise<void> {
    this.#active = false;
    await Promise.all([this.#egresses?.stop(), this.#pools?.stop(), this.#nodes?.stop()]);
  }

  egresses(): Egress[] {
    return [...(this.#egresses?.list() ?? [])];
  }

  pool(name: string): ExternalIPPool | undefined {
    return this.#pools?.get(name);
  }

  pools(): ExternalIPPool[] {
    return [...(this.#pools?.list() ?? [])];
  }

  nodes(): EgressNodeInfo[] {
    return (this.#nodes?.list() ?? []).map(poolNodeInfo);
  }

  async updateStatus(egress: Egress, status: EgressStatus): Promise<void> {
    const { group, version, plural } = CRD_KINDS.Egress;
    await this.#api.replaceClusterCustomObjectStatus({
      group,
      version,
      plural,
      name: egress.metadata.name ?? '',
      body: { ...egress, status },
    });
  }
}
