import type { CrdKindInfo } from '../kinds.js';
import type { CrdVersion, CustomResourceDefinition, JSONSchemaProps, PrinterColumn } from './openapi.js';

export interface CrdOptions {
  /** Root openAPIV3Schema (type object). */
  schema: JSONSchemaProps;
  printerColumns?: PrinterColumn[];
  /** Serve /status separately so controllers, not users, own .status. */
  statusSubresource?: boolean;
  /**
   * Versions Antrea still serves beside the stored one (same schema, not stored). Listed first, as
   * Antrea does; kube-apiserver converts between them by rewriting apiVersion only.
   */
  olderVersions?: { name: string; deprecationWarning?: string }[];
}

/** The names of a kind; crd.antrea.io kinds and the policy.networking.k8s.io ones alike. */
export type CrdNames = Pick<
  CrdKindInfo,
  'kind' | 'plural' | 'singular' | 'shortNames' | 'version' | 'namespaced'
> & {
  readonly group: string;
};

/** Builds a CRD manifest whose names all come from the kind table, storing info.version. */
export function defineCrd(info: CrdNames, opts: CrdOptions): CustomResourceDefinition {
  const version = (name: string, storage: boolean): CrdVersion => ({
    name,
    served: true,
    storage,
    ...(opts.printerColumns ? { additionalPrinterColumns: opts.printerColumns } : {}),
    schema: { openAPIV3Schema: opts.schema },
    ...(opts.statusSubresource ? { subresources: { status: {} } } : {}),
  });
  const older = (opts.olderVersions ?? []).map((v) => ({
    ...version(v.name, false),
    ...(v.deprecationWarning ? { deprecated: true, deprecationWarning: v.deprecationWarning } : {}),
  }));
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    // Every CRD carries app=antrea so `kubectl delete crd -l app=antrea` removes them all (Antrea
    // forgets the label on two of its CRDs).
    metadata: { name: `${info.plural}.${info.group}`, labels: { app: 'antrea' } },
    spec: {
      group: info.group,
      versions: [...older, version(info.version, true)],
      scope: info.namespaced ? 'Namespaced' : 'Cluster',
      names: {
        plural: info.plural,
        singular: info.singular,
        kind: info.kind,
        shortNames: [...info.shortNames],
      },
    },
  };
}
