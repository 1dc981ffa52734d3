import type { V1ObjectMeta } from '@kubernetes/client-node';

/** Any Kubernetes object as JSON (crd.antrea.io kinds and core kinds alike). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [field: string]: unknown;
}

/** The kinds the CCP adapter owns. */
export const MANAGED_KINDS = ['Tier', 'ClusterGroup', 'ClusterNetworkPolicy'] as const;
export type ManagedKind = (typeof MANAGED_KINDS)[number];

/**
 * Cluster-scoped crd.antrea.io objects carrying the managed-by label, as a cache kept current by a
 * watch plus the adapter's own writes. The reconciler reads the cache and writes through it.
 */
export interface ManagedCrdStore {
  /** Starts watching; resolves when the initial lists are in. `onChange` fires on every change. */
  start(onChange: (kind: ManagedKind, name: string) => void, signal?: AbortSignal): Promise<void>;
  list(kind: ManagedKind): KubeObject[];
  get(kind: ManagedKind, name: string): KubeObject | undefined;
  create(kind: ManagedKind, obj: KubeObject): Promise<void>;
  /** Replaces spec/metadata; `obj.metadata.resourceVersion` guards against lost updates. */
  replace(kind: ManagedKind, obj: KubeObject): Promise<void>;
  delete(kind: ManagedKind, name: string): Promise<void>;
  stop(): Promise<void>;
}
