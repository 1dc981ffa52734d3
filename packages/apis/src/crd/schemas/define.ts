import type { CrdKindInfo } from '../kinds.js';
import type { CustomResourceDefinition, JSONSchemaProps, PrinterColumn } from './openapi.js';

export interface CrdOptions {
  /** Root openAPIV3Schema (type object). */
  schema: JSONSchemaProps;
  printerColumns?: PrinterColumn[];
  /** Serve /status separately so controllers, not users, own .status. */
  statusSubresource?: boolean;
}

/** Builds a single-version CRD manifest whose names all come from the kind table. */
export function defineCrd(info: CrdKindInfo, opts: CrdOptions): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    // Every CRD carries app=antrea so `kubectl delete crd -l app=antrea` removes them all (Antrea
    // forgets the label on two of its CRDs).
    metadata: { name: `${info.plural}.${info.group}`, labels: { app: 'antrea' } },
    spec: {
      group: info.group,
      versions: [
        {
          name: info.version,
          served: true,
          storage: true,
          ...(opts.printerColumns ? { additionalPrinterColumns: opts.printerColumns } : {}),
          schema: { openAPIV3Schema: opts.schema },
          ...(opts.statusSubresource ? { subresources: { status: {} } } : {}),
        },
      ],
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
