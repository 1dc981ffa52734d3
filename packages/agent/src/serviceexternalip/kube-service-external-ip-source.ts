import {
  CRD_KINDS,
  type CrdInformer,
  crdInformer,
  type ExternalIPPool,
  restartInformerOnError,
} from '@antrea-ts/apis';
import {
  CoreV1Api,
  DiscoveryV1Api,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
  type V1EndpointSlice,
  type V1Node,
  type V1Service,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EgressNodeInfo } from '../egress/egress-source.js';
import { poolNodeInfo } from '../egress/kube-egress-source.js';
import type { ServiceExternalIPSource } from './service-external-ip-source.js';

type Cached<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

/** ServiceExternalIPSource on kube-apiserver: four list-watch informers and the Service status. */
export class KubeServiceExternalIPSource implements ServiceExternalIPSource {
  readonly #core: CoreV1Api;
  readonly #log: Logger;
  #services: Cached<V1Service> | undefined;
  #slices: Cached<V1EndpointSlice> | undefined;
  #pools: CrdInformer<ExternalIPPool> | undefined;
  #nodes: Cached<V1Node> | undefined;
  #active = false;

  constructor(
    private readonly kc: KubeConfig,
    logger: Logger,
  ) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#log = logger.child({ component: 'service-external-ip-source' });
  }

  async start(changed: () => void): Promise<void> {
    this.#active = true;
    const discovery = this.kc.makeApiClient(DiscoveryV1Api);
    this.#services = makeInformer<V1Service>(this.kc, '/api/v1/services', () =>
      this.#core.listServiceForAllNamespaces(),
    );
    this.#slices = makeInformer<V1EndpointSlice>(this.kc, '/apis/discovery.k8s.io/v1/endpointslices', () =>
      discovery.listEndpointSliceForAllNamespaces(),
    );
    this.#pools = crdInformer<ExternalIPPool>(this.kc, CRD_KINDS.ExternalIPPool);
    this.#nodes = makeInformer<V1Node>(this.kc, '/api/v1/nodes', () => this.#core.listNode());
    const informers = [this.#services, this.#slices, this.#pools, this.#nodes] as Array<
      Informer<KubernetesObject>
    >;
    for (const informer of informers) {
      for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, () => changed());
      restartInformerOnError(informer, {
        active: () => this.#active,
        onError: (err) => this.#log.warn({ err: String(err) }, 'ServiceExternalIP watch failed; restarting'),
        onRestarted: changed,
      });
    }
    await Promise.all(informers.map((i) => i.start()));
  }

  async stop(): Promise<void> {
    this.#active = false;
    await Promise.all([
      this.#services?.stop(),
      this.#slices?.stop(),
      this.#pools?.stop(),
      this.#nodes?.stop(),
    ]);
  }

  services(): V1Service[] {
    return [...(this.#services?.list() ?? [])];
  }

  endpointNodes(service: V1Service): ReadonlySet<string> {
    const out = new Set<string>();
    const name = service.metadata?.name;
    for (const slice of this.#slices?.list(service.metadata?.namespace) ?? []) {
      if (slice.metadata?.labels?.['kubernetes.io/service-name'] !== name) continue;
      for (const ep of slice.endpoints ?? []) {
        if (ep.nodeName && ep.conditions?.ready !== false) out.add(ep.nodeName);
      }
    }
    return out;
  }

  pool(name: string): ExternalIPPool | undefined {
    return this.#pools?.get(name);
  }

  nodes(): EgressNodeInfo[] {
    return (this.#nodes?.list() ?? []).map(poolNodeInfo);
  }

  async setIngressHostname(service: V1Service, hostname: string): Promise<void> {
    const [first, ...rest] = service.status?.loadBalancer?.ingress ?? [];
    if (!first) return;
    const body: V1Service = {
      ...service,
      status: { ...service.status, loadBalancer: { ingress: [{ ...first, hostname }, ...rest] } },
    };
    await this.#core.replaceNamespacedServiceStatus({
      name: service.metadata?.name ?? '',
      namespace: service.metadata?.namespace ?? '',
      body,
    });
  }
}
