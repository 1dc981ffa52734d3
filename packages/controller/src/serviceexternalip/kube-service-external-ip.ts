import { CRD_KINDS, crdInformer, type ExternalIPPool } from '@antrea-ts/apis';
import { CoreV1Api, type KubeConfig, makeInformer, type V1Service } from '@kubernetes/client-node';
import type { PoolUsage } from '../egress/allocation-plan.js';
import { KubeEgressWriter } from '../egress/kube-egress-writer.js';
import type {
  ServiceExternalIPInformers,
  ServiceExternalIPWriter,
} from './service-external-ip-controller.js';

/**
 * ServiceExternalIPWriter on kube-apiserver: the Service status subresource, replaced whole with
 * the cached resourceVersion (a stale write fails with 409 and the next sync retries); pool usage
 * as the Egress controller writes it.
 */
export class KubeServiceExternalIPWriter implements ServiceExternalIPWriter {
  readonly #core: CoreV1Api;
  readonly #pools: KubeEgressWriter;

  constructor(kc: KubeConfig) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#pools = new KubeEgressWriter(kc);
  }

  async setIngressIp(svc: V1Service, ip: string | undefined): Promise<void> {
    const body: V1Service = {
      ...svc,
      status: { ...(svc.status ?? {}), loadBalancer: { ingress: ip === undefined ? [] : [{ ip }] } },
    };
    await this.#core.replaceNamespacedServiceStatus({
      name: svc.metadata?.name ?? '',
      namespace: svc.metadata?.namespace ?? '',
      body,
    });
  }

  setPoolUsage(pool: ExternalIPPool, usage: PoolUsage): Promise<void> {
    return this.#pools.setPoolUsage(pool, usage);
  }
}

/** List-watch informers of every Service and of the ExternalIPPools. */
export function makeServiceExternalIPInformers(kc: KubeConfig): ServiceExternalIPInformers {
  const core = kc.makeApiClient(CoreV1Api);
  return {
    services: makeInformer<V1Service>(kc, '/api/v1/services', () => core.listServiceForAllNamespaces()),
    externalIPPools: crdInformer<ExternalIPPool>(kc, CRD_KINDS.ExternalIPPool),
  };
}
