/**
 * A Service with hand-made Endpoints and EndpointSlice pointing at one address: how tests put a server
 * of theirs behind an APIService or webhook, since nothing (no kube-proxy, no Pods) would fill them.
 * The aggregator resolves through EndpointSlices, older paths through Endpoints, so both are made.
 * The address must not be loopback: the apiserver refuses loopback endpoints.
 */
export function serviceWithEndpoints(options: {
  name: string;
  namespace: string;
  ip: string;
  port: number;
  portName?: string;
  servicePort?: number;
}): Record<string, unknown>[] {
  const { name, namespace, ip, port } = options;
  const portName = options.portName ?? 'https';
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { ports: [{ name: portName, port: options.servicePort ?? 443, targetPort: port }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name, namespace },
      subsets: [{ addresses: [{ ip }], ports: [{ name: portName, port }] }],
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${name}-1`, namespace, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [ip], conditions: { ready: true } }],
      ports: [{ name: portName, port, protocol: 'TCP' }],
    },
  ];
}
