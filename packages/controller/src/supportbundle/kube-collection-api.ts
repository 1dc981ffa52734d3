import {
  CRD_KINDS,
  crdInformer,
  restartInformerOnError,
  type SupportBundleCollection,
  type SupportBundleCollectionStatus,
} from '@antrea-ts/apis';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { KubeSecretClient } from '../apiserver/tls-secret.js';
import type { NamedLabels } from './collection-status.js';

/** What the SupportBundleCollection controller reads and writes in the Kubernetes API. */
export interface CollectionApi {
  listCollections(): Promise<SupportBundleCollection[]>;
  /**
   * Calls `changed` after every CR event until the returned stop is called; optional (without it
   * the controller sees CRs at its resync only).
   */
  watchCollections?(changed: () => void, failed: (err: unknown) => void): () => Promise<void>;
  listNodes(): Promise<NamedLabels[]>;
  /** ExternalNodes (crd.antrea.io/v1alpha1); none when the kind is not served. */
  listExternalNodes(): Promise<(NamedLabels & { namespace: string })[]>;
  /** A Secret's data, decoded; undefined when absent. */
  readSecret(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  writeStatus(name: string, status: SupportBundleCollectionStatus): Promise<void>;
}

const { group, version, plural } = CRD_KINDS.SupportBundleCollection;
/** The request parameters client-node's CustomObjectsApi takes for the collections. */
const COLLECTIONS = { group, version, plural };

export class KubeCollectionApi implements CollectionApi {
  readonly #crds: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #secrets: KubeSecretClient;

  constructor(private readonly kc: KubeConfig) {
    this.#crds = kc.makeApiClient(CustomObjectsApi);
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#secrets = new KubeSecretClient(kc);
  }

  async listCollections(): Promise<SupportBundleCollection[]> {
    const list = (await this.#crds.listClusterCustomObject(COLLECTIONS)) as {
      items?: SupportBundleCollection[];
    };
    return list.items ?? [];
  }

  watchCollections(changed: () => void, failed: (err: unknown) => void): () => Promise<void> {
    const informer = crdInformer<SupportBundleCollection>(this.kc, COLLECTIONS);
    let active = true;
    for (const verb of ['add', 'update', 'delete'] as const) informer.on(verb, () => changed());
    restartInformerOnError(informer, { active: () => active, onError: failed });
    void informer.start().catch(failed);
    return async () => {
      active = false;
      await informer.stop();
    };
  }

  async listNodes(): Promise<NamedLabels[]> {
    return (await this.#core.listNode()).items.map((n) => ({
      name: n.metadata?.name ?? '',
      labels: n.metadata?.labels ?? {},
    }));
  }

  async listExternalNodes(): Promise<(NamedLabels & { namespace: string })[]> {
    try {
      const list = (await this.#crds.listClusterCustomObject({
        group: 'crd.antrea.io',
        version: 'v1alpha1',
        plural: 'externalnodes',
      })) as {
        items?: { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> } }[];
      };
      return (list.items ?? []).map((e) => ({
        name: e.metadata?.name ?? '',
        namespace: e.metadata?.namespace ?? '',
        labels: e.metadata?.labels ?? {},
      }));
    } catch (err) {
      if ((err as { code?: number }).code === 404) return [];
      throw err;
    }
  }

  readSecret(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    return this.#secrets.get(namespace, name);
  }

  async writeStatus(name: string, status: SupportBundleCollectionStatus): Promise<void> {
    await this.#crds.patchClusterCustomObjectStatus(
      { ...COLLECTIONS, name, body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}
