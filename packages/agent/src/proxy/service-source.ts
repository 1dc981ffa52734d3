import { restartInformerOnError, trackListed } from '@antrea-ts/apis';
import {
  CoreV1Api,
  DiscoveryV1Api,
  type KubeConfig,
  type KubernetesObject,
  makeInformer,
  type V1EndpointSlice,
  type V1Service,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { serviceKey } from './model.js';

/** What the proxier is told; keys are `<namespace>/<name>` of the object itself. */
export interface ServiceHandlers {
  upsertService(svc: V1Service): void;
  removeService(key: string): void;
  upsertSlice(slice: V1EndpointSlice): void;
  removeSlice(key: string): void;
  /** Both initial lists have been delivered. */
  synced(): void;
}

/** A watch on Services and EndpointSlices; the real one is two informers, tests may feed events by hand. */
export interface ServiceSource {
  /** May resolve before synced(): a failed initial list is retried in the background. */
  start(handlers: ServiceHandlers): Promise<void>;
  stop(): Promise<void>;
}

const keyOf = (o: KubernetesObject): string => serviceKey(o.metadata?.namespace, o.metadata?.name);

type Informer<T extends KubernetesObject> = ReturnType<typeof makeInformer<T>>;

/** Services and EndpointSlices from kube-apiserver (list, then watch; re-list on errors). */
export class InformerServiceSource implements ServiceSource {
  private informers: [Informer<V1Service>, Informer<V1EndpointSlice>] | undefined;
  private readonly log: Logger;

  constructor(
    private readonly kubeConfig: KubeConfig,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'service-informer' });
  }

  async start(h: ServiceHandlers): Promise<void> {
    if (this.informers) return;
    const core = this.kubeConfig.makeApiClient(CoreV1Api);
    const discovery = this.kubeConfig.makeApiClient(DiscoveryV1Api);
    // synced() waits until both lists were read, else the proxier would take "nothing known" for
    // "no Services" (informer.start() resolves after a failed list too).
    const serviceList = trackListed(() => core.listServiceForAllNamespaces());
    const sliceList = trackListed(() => discovery.listEndpointSliceForAllNamespaces());
    let announced = false;
    const announce = (): void => {
      if (announced || !serviceList.listed() || !sliceList.listed() || !this.informers) return;
      announced = true;
      h.synced();
    };
    const services = makeInformer<V1Service>(this.kubeConfig, '/api/v1/services', serviceList.list);
    const slices = makeInformer<V1EndpointSlice>(
      this.kubeConfig,
      '/apis/discovery.k8s.io/v1/endpointslices',
      sliceList.list,
    );
    this.informers = [services, slices];
    services.on('add', (s) => h.upsertService(s));
    services.on('update', (s) => h.upsertService(s));
    services.on('delete', (s) => h.removeService(keyOf(s)));
    slices.on('add', (s) => h.upsertSlice(s));
    slices.on('update', (s) => h.upsertSlice(s));
    slices.on('delete', (s) => h.removeSlice(keyOf(s)));
    for (const [what, informer] of [
      ['Service', services],
      ['EndpointSlice', slices],
    ] as const) {
      restartInformerOnError(informer, {
        active: () => this.informers !== undefined,
        onError: (err) => this.log.warn({ err: String(err), what }, 'watch failed; restarting'),
        onRestarted: announce,
      });
    }
    await Promise.all([services.start(), slices.start()]);
    announce();
  }

  async stop(): Promise<void> {
    const informers = this.informers;
    this.informers = undefined;
    await Promise.all((informers ?? []).map((i) => i.stop()));
  }
}
