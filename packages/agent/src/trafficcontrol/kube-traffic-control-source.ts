import { CRD_KINDS, crdInformer, restartInformerOnError, type TrafficControl } from '@antrea-ts/apis';
import {
  CoreV1Api,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  ListWatch,
  makeInformer,
  type ObjectCache,
  type V1Namespace,
  type V1Pod,
  Watch,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { LabeledPod, TrafficControlSource } from './traffic-control-source.js';

type Cached<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

/**
 * TrafficControlSource on kube-apiserver: TrafficControls, this Node's Pods (fieldSelector
 * spec.nodeName, as Antrea's agent Pod informer) and Namespaces.
 */
export class KubeTrafficControlSource implements TrafficControlSource {
  readonly #log: Logger;
  #tcs: Cached<TrafficControl> | undefined;
  #pods: Cached<V1Pod> | undefined;
  #namespaces: Cached<V1Namespace> | undefined;
  #active = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly nodeName: string,
    logger: Logger,
  ) {
    this.#log = logger.child({ component: 'traffic-control-source' });
  }

  async start(changed: () => void): Promise<void> {
    this.#active = true;
    const core = this.kc.makeApiClient(CoreV1Api);
    const fieldSelector = `spec.nodeName=${this.nodeName}`;
    this.#tcs = crdInformer<TrafficControl>(this.kc, CRD_KINDS.TrafficControl);
    this.#pods = new ListWatch<V1Pod>(
      '/api/v1/pods',
      new Watch(this.kc),
      () => core.listPodForAllNamespaces({ fieldSelector }),
      false,
      undefined,
      fieldSelector,
    );
    this.#namespaces = makeInformer<V1Namespace>(this.kc, '/api/v1/namespaces', () => core.listNamespace());
    const informers = [this.#tcs, this.#pods, this.#namespaces] as Array<Informer<KubernetesObject>>;
    for (const informer of informers) {
      for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, () => changed());
      restartInformerOnError(informer, {
        active: () => this.#active,
        onError: (err) => this.#log.warn({ err: String(err) }, 'TrafficControl watch failed; restarting'),
        onRestarted: changed,
      });
    }
    await Promise.all(informers.map((i) => i.start()));
  }

  async stop(): Promise<void> {
    this.#active = false;
    await Promise.all([this.#tcs?.stop(), this.#pods?.stop(), this.#namespaces?.stop()]);
  }

  trafficControls(): TrafficControl[] {
    return [...(this.#tcs?.list() ?? [])];
  }

  pods(): LabeledPod[] {
    return (this.#pods?.list() ?? []).map((p) => ({
      namespace: p.metadata?.namespace ?? '',
      name: p.metadata?.name ?? '',
      labels: p.metadata?.labels ?? {},
      hostNetwork: p.spec?.hostNetwork === true,
    }));
  }

  namespaceLabels(namespace: string): Record<string, string> | undefined {
    return this.#namespaces?.get(namespace)?.metadata?.labels;
  }
}
