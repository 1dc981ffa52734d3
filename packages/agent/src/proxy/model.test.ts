import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type ModelOptions, SERVICE_PROXY_NAME_LABEL, servicePortModels } from './model.js';
import { service, slice } from './test-objects.js';

const opts: ModelOptions = {
  nodeName: 'node-a',
  skipServices: [],
  serviceProxyName: '',
  proxyAll: false,
  proxyLoadBalancerIPs: true,
};

function models(services: V1Service[], slices: V1EndpointSlice[], o: ModelOptions = opts) {
  const bySvc = (key: string) =>
    slices.filter((s) => `default/${s.metadata?.labels?.['kubernetes.io/service-name']}` === key);
  return servicePortModels(services, bySvc, o);
}

describe('servicePortModels', () => {
  it('gives each service port its ClusterIP, port, protocol and sorted ready endpoints', () => {
    const m = models(
      [service('web')],
      [
        slice('web-1', 'web', [
          { ip: '10.10.1.5' },
          { ip: '10.10.0.7', ready: true },
          { ip: '10.10.0.8', ready: false },
        ]),
      ],
    );
    expect([...m.values()]).toEqual([
      {
        owner: 'service/default/web/http/TCP',
        clusterIp: '10.96.0.10',
        port: 80,
        protocol: 'TCP',
        endpoints: [
          { ip: '10.10.0.7', port: 8080 },
          { ip: '10.10.1.5', port: 8080 },
        ],
      },
    ]);
  });

  it('falls back to serving terminating endpoints only when none is ready', () => {
    const draining = { ip: '10.10.0.9', ready: false, serving: true, terminating: true };
    const gone = { ip: '10.10.0.10', ready: false, serving: false, terminating: true };
    const both = models([service('web')], [slice('s', 'web', [{ ip: '10.10.0.7' }, draining, gone])]);
    expect(both.get('service/default/web/http/TCP')?.endpoints).toEqual([{ ip: '10.10.0.7', port: 8080 }]);
    const onlyDraining = models([service('web')], [slice('s', 'web', [draining, gone])]);
    expect(onlyDraining.get('service/default/web/http/TCP')?.endpoints).toEqual([
      { ip: '10.10.0.9', port: 8080 },
    ]);
    const none = models([service('web')], [slice('s', 'web', [gone])]);
    expect(none.get('service/default/web/http/TCP')?.endpoints).toEqual([]);
  });

  it('matches slice ports by name and protocol, across several slices, without duplicates', () => {
    const svc = service('dns', {
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      ],
    });
    const ports = [
      { name: 'dns', port: 5353, protocol: 'UDP' },
      { name: 'dns-tcp', port: 5354, protocol: 'TCP' },
    ];
    const m = models(
      [svc],
      [
        slice('a', 'dns', [{ ip: '10.10.0.2' }], ports),
        slice('b', 'dns', [{ ip: '10.10.1.2' }, { ip: '10.10.0.2' }], ports),
      ],
    );
    expect(m.get('service/default/dns/dns/UDP')?.endpoints).toEqual([
      { ip: '10.10.0.2', port: 5353 },
      { ip: '10.10.1.2', port: 5353 },
    ]);
    expect(m.get('service/default/dns/dns-tcp/TCP')?.endpoints).toEqual([
      { ip: '10.10.0.2', port: 5354 },
      { ip: '10.10.1.2', port: 5354 },
    ]);
  });

  it('keeps only this Node’s endpoints with internalTrafficPolicy Local', () => {
    const eps = [
      { ip: '10.10.0.7', node: 'node-a' },
      { ip: '10.10.1.5', node: 'node-b' },
    ];
    const m = models([service('web', { internalTrafficPolicy: 'Local' })], [slice('s', 'web', eps)]);
    expect(m.get('service/default/web/http/TCP')?.endpoints).toEqual([{ ip: '10.10.0.7', port: 8080 }]);
  });

  it('skips headless, ExternalName, IPv6-only, other proxies’ and skipServices Services', () => {
    const s = [slice('s', 'x', [{ ip: '10.10.0.7' }])];
    expect(models([service('x', { clusterIP: 'None' })], s).size).toBe(0);
    expect(models([service('x', { type: 'ExternalName', clusterIP: undefined })], s).size).toBe(0);
    expect(models([service('x', { clusterIP: 'fd00::1', clusterIPs: ['fd00::1'] })], s).size).toBe(0);
    expect(models([service('x', {}, { [SERVICE_PROXY_NAME_LABEL]: 'other' })], s).size).toBe(0);
    expect(models([service('x')], s, { ...opts, skipServices: ['default/x'] }).size).toBe(0);
    expect(models([service('x')], s, { ...opts, skipServices: ['10.96.0.10'] }).size).toBe(0);
    // With serviceProxyName set, only the Services labelled with it.
    const mine = { ...opts, serviceProxyName: 'mine' };
    expect(models([service('x')], s, mine).size).toBe(0);
    expect(models([service('x', {}, { [SERVICE_PROXY_NAME_LABEL]: 'mine' })], s, mine).size).toBe(1);
  });

  it('proxies the IPv4 ClusterIP of NodePort and dual-stack Services', () => {
    const m = models([service('x', { type: 'NodePort', clusterIPs: ['fd00::1', '10.96.0.20'] })], []);
    expect(m.get('service/default/x/http/TCP')).toMatchObject({ clusterIp: '10.96.0.20', endpoints: [] });
  });

  it('sets ClientIP affinity with its timeout, 10800 s by default', () => {
    const plain = models([service('web', { sessionAffinity: 'ClientIP' })], []);
    expect(plain.get('service/default/web/http/TCP')?.affinityTimeoutSeconds).toBe(10800);
    const timed = models(
      [
        service('web', {
          sessionAffinity: 'ClientIP',
          sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
        }),
      ],
      [],
    );
    expect(timed.get('service/default/web/http/TCP')?.affinityTimeoutSeconds).toBe(60);
    expect(models([service('web')], []).get('service/default/web/http/TCP')).not.toHaveProperty(
      'affinityTimeoutSeconds',
    );
  });

  it('ignores non-IPv4 slices', () => {
    const v6 = { ...slice('s', 'web', [{ ip: 'fd00::7' }]), addressType: 'IPv6' };
    expect(models([service('web')], [v6]).get('service/default/web/http/TCP')?.endpoints).toEqual([]);
  });

  it('adds LoadBalancer ingress IPs (not ipMode Proxy, not with proxyLoadBalancerIPs off) and externalIPs', () => {
    const lb = {
      ...service('web', { type: 'LoadBalancer', externalIPs: ['172.31.0.9', 'fd00::9'] }),
      status: {
        loadBalancer: {
          ingress: [
            { ip: '172.31.0.2' },
            { ip: '172.31.0.1', ipMode: 'VIP' },
            { ip: '172.31.0.3', ipMode: 'Proxy' },
          ],
        },
      },
    };
    const port = (o: ModelOptions) => [...models([lb], [], o).values()][0];
    expect(port(opts)?.externalIps).toEqual(['172.31.0.1', '172.31.0.2', '172.31.0.9']);
    expect(port({ ...opts, proxyLoadBalancerIPs: false })?.externalIps).toEqual(['172.31.0.9']);
    // Ingress IPs of a Service that is no longer a LoadBalancer are stale.
    expect(
      [...models([{ ...lb, spec: { ...lb.spec, type: 'ClusterIP' } }], []).values()][0]?.externalIps,
    ).toEqual(['172.31.0.9']);
  });

  it('with proxyAll only: nodePorts of NodePort and LoadBalancer Services, and Local endpoints for externalTrafficPolicy Local', () => {
    const np = service('web', {
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }],
    });
    const slices = [
      slice('web-1', 'web', [
        { ip: '10.10.1.5', node: 'node-a' },
        { ip: '10.10.2.5', node: 'node-b' },
      ]),
    ];
    const off = [...models([np], slices).values()][0];
    expect(off?.nodePort).toBeUndefined();
    expect(off?.localEndpoints).toBeUndefined();
    const on = [...models([np], slices, { ...opts, proxyAll: true }).values()][0];
    expect(on?.nodePort).toBe(30080);
    expect(on?.endpoints.map((e) => e.ip)).toEqual(['10.10.1.5', '10.10.2.5']);
    expect(on?.localEndpoints).toEqual([{ ip: '10.10.1.5', port: 8080 }]);
    // A ClusterIP Service keeps a stale nodePort out; Cluster policy has no local endpoint set.
    const cip = service('web', { ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }] });
    const plain = [...models([cip], slices, { ...opts, proxyAll: true }).values()][0];
    expect(plain?.nodePort).toBeUndefined();
    expect(plain?.localEndpoints).toBeUndefined();
  });

  it('prefers the endpoints hinted for the Node’s zone, except under a Local policy', () => {
    const eps = [
      { ip: '10.10.1.5', node: 'node-a', zones: ['zone-a'] },
      { ip: '10.10.2.5', node: 'node-b', zones: ['zone-b'] },
    ];
    const zoneA = { ...opts, nodeZone: 'zone-a' };
    const ipsOf = (svc = service('web'), o: ModelOptions = zoneA, s = [slice('s', 'web', eps)]) =>
      [...models([svc], s, o).values()][0]?.endpoints.map((e) => e.ip);
    expect(ipsOf()).toEqual(['10.10.1.5']);
    expect(ipsOf(service('web'), { ...opts, nodeZone: 'zone-b' })).toEqual(['10.10.2.5']);
    expect(ipsOf(service('web'), opts)).toEqual(['10.10.1.5', '10.10.2.5']);
    // Hints in one slice count with the endpoints of the others: one unhinted endpoint turns them off.
    const split = [slice('s1', 'web', eps), slice('s2', 'web', [{ ip: '10.10.3.5', node: 'node-c' }])];
    expect(ipsOf(service('web'), zoneA, split)).toEqual(['10.10.1.5', '10.10.2.5', '10.10.3.5']);
    // internalTrafficPolicy Local: this Node's endpoint even when hinted elsewhere.
    const other = [slice('s', 'web', [{ ...eps[0]!, zones: ['zone-b'] }, eps[1]!])];
    expect(ipsOf(service('web', { internalTrafficPolicy: 'Local' }), zoneA, other)).toEqual(['10.10.1.5']);
    // externalTrafficPolicy Local with proxyAll: the zone for internal traffic, the Node for external.
    const np = service('web', {
      type: 'NodePort',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }],
    });
    const onB = [
      ...models([np], [slice('s', 'web', eps)], {
        ...opts,
        nodeName: 'node-b',
        nodeZone: 'zone-a',
        proxyAll: true,
      }).values(),
    ][0];
    expect(onB?.endpoints).toEqual([{ ip: '10.10.1.5', port: 8080 }]);
    expect(onB?.localEndpoints).toEqual([{ ip: '10.10.2.5', port: 8080 }]);
  });
});
