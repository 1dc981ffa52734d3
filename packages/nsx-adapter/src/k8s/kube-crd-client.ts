import { CRD_KINDS, type CrdKind } from '@antrea-ts/apis';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { kubeError } from './kube-errors.js';
import type { KubeObject } from './types.js';

/** Plain reads and writes of cluster-scoped crd.antrea.io objects (Traceflow, bundles, monitoring). */
export interface CrdClient {
  create(kind: CrdKind, obj: KubeObject): Promise<KubeObject>;
  get(kind: CrdKind, name: string): Promise<KubeObject | undefined>;
  list(kind: CrdKind): Promise<KubeObject[]>;
  delete(kind: CrdKind, name: string): Promise<void>;
}

export class KubeCrdClient implements CrdClient {
  private readonly api: CustomObjectsApi;
  constructor(kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
  }
  private where(kind: CrdKind) {
    const i = CRD_KINDS[kind];
    return { group: i.group, version: i.version, plural: i.plural };
  }
  async create(kind: CrdKind, obj: KubeObject): Promise<KubeObject> {
    try {
      return (await this.api.createClusterCustomObject({ ...this.where(kind), body: obj })) as KubeObject;
    } catch (err) {
      throw kubeError(`create ${kind} ${obj.metadata?.name}`, err);
    }
  }
  async get(kind: CrdKind, name: string): Promise<KubeObject | undefined> {
    try {
      return (await this.api.getClusterCustomObject({ ...this.where(kind), name })) as KubeObject;
    } catch (err) {
      const e = kubeError(`get ${kind} ${name}`, err);
      if (e.code === 'K8S_NOT_FOUND') return undefined;
      throw e;
    }
  }
  async list(kind: CrdKind): Promise<KubeObject[]> {
    try {
      return (
        ((await this.api.listClusterCustomObject(this.where(kind))) as { items?: KubeObject[] }).items ?? []
      );
    } catch (err) {
      const e = kubeError(`list ${kind}`, err);
      // The CRD may not be installed (no Antrea yet): nothing to read.
      if (e.code === 'K8S_NOT_FOUND') return [];
      throw e;
    }
  }
  async delete(kind: CrdKind, name: string): Promise<void> {
    try {
      await this.api.deleteClusterCustomObject({ ...this.where(kind), name });
    } catch (err) {
      const e = kubeError(`delete ${kind} ${name}`, err);
      if (e.code !== 'K8S_NOT_FOUND') throw e;
    }
  }
}
