import { restartInformerOnError, trackListed } from '@antrea-ts/apis';
import {
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  ListWatch,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
  type V1Service,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { NPL_ANNOTATION, nplPod, nplService } from './model.js';
import type { NplAnnotator, NplHandlers, NplSource } from './npl-controller.js';

const keyOf = (o: KubernetesObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** This Node's Pods (fieldSelector spec.nodeName, as Antrea's agent Pod informer) and every Service. */
export class InformerNplSource implements NplSource {
  private informers: [ListWatch<V1Pod>, ListWatch<V1Service>] | undefined;
  private readonly log: Logger;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly nodeName: string,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'npl-informer' });
  }

  async start(h: NplHandlers): Promise<void> {
    if (this.informers) return;
    const core = this.kubeConfig.makeApiClient(CoreV1Api);
    const fieldSelector = `spec.nodeName=${this.nodeName}`;
    const podList = trackListed(() => core.listPodForAllNamespaces({ fieldSelector }));
    const serviceList = trackListed(() => core.listServiceForAllNamespaces());
    let announced = false;
    const announce = (): void => {
      if (announced || !podList.listed() || !serviceList.listed() || !this.informers) return;
      announced = true;
      h.synced();
    };
    const watch = new Watch(this.kubeConfig);
    const pods = new ListWatch<V1Pod>('/api/v1/pods', watch, podList.list, false, undefined, fieldSelector);
    const services = new ListWatch<V1Service>('/api/v1/services', watch, serviceList.list, false);
    this.informers = [pods, services];
    pods.on('add', (p) => h.upsertPod(nplPod(p)));
    pods.on('update', (p) => h.upsertPod(nplPod(p)));
    pods.on('delete', (p) => h.removePod(keyOf(p)));
    services.on('add', (s) => h.upsertService(nplService(s)));
    services.on('update', (s) => h.upsertService(nplService(s)));
    services.on('delete', (s) => h.removeService(keyOf(s)));
    for (const [what, informer] of [
      ['Pod', pods],
      ['Service', services],
    ] as const) {
      restartInformerOnError(informer as ListWatch<KubernetesObject>, {
        active: () => this.informers !== undefined,
        onError: (err) => this.log.warn({ err: String(err), what }, 'watch failed; restarting'),
        onRestarted: announce,
      });
    }
    await Promise.all([pods.start(), services.start()]);
    announce();
  }

  async stop(): Promise<void> {
    const informers = this.informers;
    this.informers = undefined;
    await Promise.all((informers ?? []).map((i) => i.stop()));
  }
}

/**
 * Writes the annotation with a JSON merge patch on pods/status, as Antrea does (the agent may
 * patch a Pod's status, not its spec): only the one key, null deleting it.
 */
export class KubeNplAnnotator implements NplAnnotator {
  private readonly core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async set(namespace: string, name: string, value: string | null): Promise<void> {
    try {
      await this.core.patchNamespacedPodStatus(
        { namespace, name, body: { metadata: { annotations: { [NPL_ANNOTATION]: value } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
}
