import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { SERVICE_NAME_LABEL } from './model.js';

/** Test builders of Services and EndpointSlices (plain API objects, as informers deliver them). */

export function service(
  name: string,
  spec: Partial<NonNullable<V1Service['spec']>> = {},
  labels: Record<string, string> = {},
): V1Service {
  return {
    metadata: { namespace: 'default', name, labels },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      ...spec,
    },
  };
}

export interface EndpointSpec {
  ip: string;
  node?: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  /** hints.forZones names. */
  zones?: string[];
}

export function slice(
  name: string,
  svc: string,
  endpoints: EndpointSpec[],
  ports: Array<{ name?: string; port: number; protocol?: string }> = [
    { name: 'http', port: 8080, protocol: 'TCP' },
  ],
): V1EndpointSlice {
  return {
    metadata: { namespace: 'default', name, labels: { [SERVICE_NAME_LABEL]: svc } },
    addressType: 'IPv4',
    ports,
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      ...(e.node !== undefined && { nodeName: e.node }),
      ...(e.zones !== undefined && { hints: { forZones: e.zones.map((name) => ({ name })) } }),
      conditions: {
        ...(e.ready !== undefined && { ready: e.ready }),
        ...(e.serving !== undefined && { serving: e.serving }),
        ...(e.terminating !== undefined && { terminating: e.terminating }),
      },
    })),
  };
}
