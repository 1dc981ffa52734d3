import { restartInformerOnError } from '@antrea-ts/apis';
import { CoreV1Api, type KubeConfig, makeInformer, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { PodInfo, PodMetadata } from './pod-metadata.js';

const info = (p: V1Pod): PodInfo => ({
  name: p.metadata?.name ?? '',
  namespace: p.metadata?.namespace ?? '',
  nodeName: p.spec?.nodeName ?? '',
  labels: p.metadata?.labels ?? {},
});

/**
 * Every Pod of the cluster from kube-apiserver (list, then watch; restarted on errors), indexed by
 * name and by Pod IP. hostNetwork Pods are not indexed by IP: their address is their Node's.
 */
export class PodInformer implements PodMetadata {
  private informer: ReturnType<typeof makeInformer<V1Pod>> | undefined;
  private readonly byAddress = new Map<string, PodInfo>();
  /** namespace/name -> the addresses indexed for it. */
  private readonly addressesOf = new Map<string, readonly string[]>();
  private readonly log: Logger;

  constructor(
    private readonly kubeConfig: KubeConfig,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'pod-informer' });
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.informer) return;
    const api = this.kubeConfig.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1Pod>(this.kubeConfig, '/api/v1/pods', () =>
      api.listPodForAllNamespaces(),
    );
    this.informer = informer;
    informer.on('add', (p) => this.index(p));
    informer.on('update', (p) => this.index(p));
    informer.on('delete', (p) => this.unindex(p));
    restartInformerOnError(informer, {
      active: () => this.informer === informer,
      onError: (err) => this.log.warn({ err: String(err) }, 'Pod watch failed; restarting'),
    });
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await informer.start();
  }

  byIp(ip: string): PodInfo | undefined {
    return this.byAddress.get(ip);
  }

  get(namespace: string, name: string): PodInfo | undefined {
    const p = this.informer?.get(name, namespace);
    return p ? info(p) : undefined;
  }

  /** Idempotent. */
  async stop(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    await informer?.stop();
  }

  private index(p: V1Pod): void {
    this.unindex(p);
    if (p.spec?.hostNetwork) return;
    const pod = info(p);
    const ips = (p.status?.podIPs ?? []).flatMap((a) => (a.ip ? [a.ip] : []));
    for (const ip of ips) this.byAddress.set(ip, pod);
    this.addressesOf.set(`${pod.namespace}/${pod.name}`, ips);
  }

  private unindex(p: V1Pod): void {
    const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
    for (const ip of this.addressesOf.get(key) ?? []) {
      // Another Pod may have taken the address since.
      const owner = this.byAddress.get(ip);
      if (owner && `${owner.namespace}/${owner.name}` === key) this.byAddress.delete(ip);
    }
    this.addressesOf.delete(key);
  }
}
