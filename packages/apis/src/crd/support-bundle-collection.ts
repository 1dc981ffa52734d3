import type { CrdCondition, CustomResource, LabelSelector, SecretReference } from './meta.js';

export const BUNDLE_AUTH_TYPES = ['BearerToken', 'APIKey', 'BasicAuthentication'] as const;
export type BundleServerAuthType = (typeof BUNDLE_AUTH_TYPES)[number];

export type SupportBundleCollectionConditionType =
  | 'Started'
  | 'Completed'
  | 'CollectionFailure'
  | 'BundleCollected';

/** Applied by the CRD schema when spec.expirationMinutes is missing. */
export const DEFAULT_BUNDLE_EXPIRATION_MINUTES = 60;

export interface BundleNodes {
  nodeNames?: string[];
  /** Both fields empty selects every Node. */
  nodeSelector?: LabelSelector;
}

export interface BundleExternalNodes {
  namespace: string;
  nodeNames?: string[];
  nodeSelector?: LabelSelector;
}

export interface BundleFileServer {
  /** scheme://host[:port][/path], for example sftp://files.example.com:22/upload. */
  url?: string;
  /** Base64 SSH wire-format host key; when missing any host key is accepted. */
  hostPublicKey?: string;
}

export interface BundleServerAuthConfiguration {
  authType?: BundleServerAuthType;
  authSecret?: SecretReference;
}

/** At least one of nodes and externalNodes is required. */
export interface SupportBundleCollectionSpec {
  nodes?: BundleNodes;
  externalNodes?: BundleExternalNodes;
  /** Defaults to DEFAULT_BUNDLE_EXPIRATION_MINUTES. */
  expirationMinutes?: number;
  /** Go duration-like relative time ("2h", "30m") from which to collect logs. */
  sinceTime?: string;
  fileServer: BundleFileServer;
  authentication: BundleServerAuthConfiguration;
}

export interface SupportBundleCollectionStatus {
  collectedNodes?: number;
  desiredNodes?: number;
  conditions?: CrdCondition<SupportBundleCollectionConditionType>[];
}

/** crd.antrea.io/v1alpha1, cluster-scoped. */
export interface SupportBundleCollection
  extends CustomResource<'SupportBundleCollection', 'crd.antrea.io/v1alpha1'> {
  spec: SupportBundleCollectionSpec;
  status?: SupportBundleCollectionStatus;
}
