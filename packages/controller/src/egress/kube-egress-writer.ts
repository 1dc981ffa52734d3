import { CRD_KINDS, crdInformer, type Egress, type EgressStatus, type ExternalIPPool } from '@antrea-ts/apis';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  makeInformer,
  type V1Namespace,
  type V1Pod,
} from '@kubernetes/client-node';
import type { PoolUsage } from './allocation-plan.js';
import type { EgressInformers, EgressWriter } from './egress-controller.js';

const crd = (kind: 'Egress' | 'ExternalIPPool') => {
  const { group, version, plural } = CRD_KINDS[kind];
  return { group, version, plural };
};

/** EgressWriter on kube-apiserver: whole-object replaces, so a stale write fails with 409. */
export class KubeEgressWriter implements EgressWriter {
  readonly #api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(CustomObjectsApi);
  }

  async setEgressIP(egress: Egress, ip: string): Promise<void> {
    const body = { ...egress, spec: { ...egress.spec, egressIP: ip } };
    await this.#api.replaceClusterCustomObject({ ...crd('Egress'), name: egress.metadata.name ?? '', body });
  }

  async setEgressStatus(egress: Egress, status: EgressStatus): Promise<void> {
    const body = { ...egress, status };
    await this.#api.replaceClusterCustomObjectStatus({
      ...crd('Egress'),
      name: egress.metadata.name ?? '',
      body,
    });
  }

  async setPoolUsage(pool: ExternalIPPool, usage: PoolUsage): Promise<void> {
    const body = { ...pool, status: { ...(pool.status ?? {}), usage } };
    await this.#api.replaceClusterCustomObjectStatus({
      ...crd('ExternalIPPool'),
      name: pool.metadata.name ?? '',
      body,
    });
  }
}

/**
 * List-watch informers for what the Egress controller reads; with `shared`, the Pod and Namespace
 * informers are those (started elsewhere) of the policy computation.
 */
export function makeEgressInformers(
  kc: KubeConfig,
  shared?: Pick<EgressInformers, 'pods' | 'namespaces'>,
): EgressInformers {
  const core = kc.makeApiClient(CoreV1Api);
  const crds = {
    egresses: crdInformer<Egress>(kc, CRD_KINDS.Egress),
    externalIPPools: crdInformer<ExternalIPPool>(kc, CRD_KINDS.ExternalIPPool),
  };
  if (shared) return { ...crds, ...shared, sharedPodInformers: true };
  return {
    ...crds,
    pods: makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces()),
    namespaces: makeInformer<V1Namespace>(kc, '/api/v1/namespaces', () => core.listNamespace()),
  };
}
