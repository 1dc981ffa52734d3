import { describe, expect, it } from 'vitest';
import { type ModelOptions, servicePortModels } from './model.js';
import { serviceHostState } from './service-host-state.js';
import { service, slice } from './test-objects.js';

const opts: ModelOptions = {
  nodeName: 'node-a',
  skipServices: [],
  serviceProxyName: '',
  proxyAll: true,
  proxyLoadBalancerIPs: true,
};

describe('serviceHostState', () => {
  const lb = {
    ...service('web', {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 32000,
      externalIPs: ['172.31.0.9'],
      ports: [
        { name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' },
        { name: 'dns', port: 53, nodePort: 30053, protocol: 'UDP' },
      ],
    }),
    status: { loadBalancer: { ingress: [{ ip: '172.31.0.1' }] } },
  };
  const slices = [
    slice(
      'web-1',
      'web',
      [
        { ip: '10.10.1.5', node: 'node-a' },
        { ip: '10.10.1.6', node: 'node-a' },
        { ip: '10.10.2.5', node: 'node-b' },
      ],
      [
        { name: 'http', port: 8080, protocol: 'TCP' },
        { name: 'dns', port: 5353, protocol: 'UDP' },
      ],
    ),
  ];

  it('collects NodePorts, VIPs and the health check with this Node’s distinct endpoint addresses', () => {
    const state = serviceHostState(
      lb,
      servicePortModels([lb], () => slices, opts),
    );
    expect(state).toEqual({
      nodePorts: [
        { protocol: 'udp', port: 30053 },
        { protocol: 'tcp', port: 30080 },
      ],
      vips: ['10.96.0.10', '172.31.0.1', '172.31.0.9'],
      healthCheck: { port: 32000, localEndpoints: 2 },
    });
  });

  it('has no health check under Cluster policy, and 0 local endpoints on a Node without any', () => {
    const cluster = { ...lb, spec: { ...lb.spec, externalTrafficPolicy: 'Cluster' } };
    expect(
      serviceHostState(
        cluster,
        servicePortModels([cluster], () => slices, opts),
      ).healthCheck,
    ).toBeUndefined();
    const other = { ...opts, nodeName: 'node-c' };
    expect(
      serviceHostState(
        lb,
        servicePortModels([lb], () => slices, other),
      ).healthCheck,
    ).toEqual({
      port: 32000,
      localEndpoints: 0,
    });
  });
});
