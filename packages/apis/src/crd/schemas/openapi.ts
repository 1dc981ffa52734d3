// The subset of apiextensions.k8s.io/v1 that Antrea's CRDs use, as plain JSON-shaped data. Kept
// independent of @kubernetes/client-node's model classes, whose camelCased field names
// (xKubernetesIntOrString) are not the wire names.

export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps;
  enum?: Array<string | number>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  minProperties?: number;
  maxProperties?: number;
  minItems?: number;
  maxItems?: number;
  maxLength?: number;
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-preserve-unknown-fields'?: true;
  /** CEL rules kube-apiserver checks (the policy.networking.k8s.io CRDs use them). */
  'x-kubernetes-validations'?: { rule: string; message: string }[];
}

export interface PrinterColumn {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  format?: string;
  description?: string;
  jsonPath: string;
  /** 0 shows in the default `kubectl get` view, higher only with `-o wide`. */
  priority?: number;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  additionalPrinterColumns?: PrinterColumn[];
  schema: { openAPIV3Schema: JSONSchemaProps };
  subresources?: { status?: Record<string, never> };
}

export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    group: string;
    versions: CrdVersion[];
    scope: 'Namespaced' | 'Cluster';
    names: { plural: string; singular: string; kind: string; shortNames?: string[]; categories?: string[] };
  };
}

type Extra = Omit<JSONSchemaProps, 'type' | 'properties' | 'items'>;

// Terse builders: the schemas read like the YAML they produce.
export const str = (extra: Extra = {}): JSONSchemaProps => ({ type: 'string', ...extra });
export const int = (extra: Extra = {}): JSONSchemaProps => ({ type: 'integer', ...extra });
export const num = (extra: Extra = {}): JSONSchemaProps => ({ type: 'number', ...extra });
export const bool = (): JSONSchemaProps => ({ type: 'boolean' });
export const obj = (properties: Record<string, JSONSchemaProps>, extra: Extra = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});
export const arr = (items: JSONSchemaProps, extra: Extra = {}): JSONSchemaProps => ({
  type: 'array',
  items,
  ...extra,
});
export const strEnum = (values: readonly string[]): JSONSchemaProps => ({
  type: 'string',
  enum: [...values],
});
export const intRange = (minimum: number, maximum: number): JSONSchemaProps => ({
  type: 'integer',
  minimum,
  maximum,
});
/** A port number or a port name, like Kubernetes' IntOrString. */
export const intOrString = (): JSONSchemaProps => ({ 'x-kubernetes-int-or-string': true });
/** A string that must be an IPv4 or an IPv6 address. */
export const ipAddress = (): JSONSchemaProps => ({
  type: 'string',
  oneOf: [{ format: 'ipv4' }, { format: 'ipv6' }],
});
export const cidr = (): JSONSchemaProps => ({ type: 'string', format: 'cidr' });
