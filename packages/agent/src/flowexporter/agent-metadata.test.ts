import { buildMatch, type Flow } from '@antrea-ts/openflow';
import { describe, expect, it } from 'vitest';
import type { PodInterface } from '../cniserver/interface-store.js';
import { InterfaceStore } from '../cniserver/interface-store.js';
import type { CompletedRule } from '../networkpolicy/rule-cache.js';
import { podsByIp, policyRuleRef, servicePortNames } from './agent-metadata.js';

const pod = (name: string, ip: string): PodInterface => ({
  containerId: name,
  podName: name,
  podNamespace: 'ns',
  hostIfName: name,
  ifName: 'eth0',
  netns: '',
  ipCidr: `${ip}/24`,
  ip,
  mac: '',
  ofport: 1,
});

describe('flow metadata from the agent', () => {
  it('finds local Pods by IP and follows the interface store', () => {
    const store = new InterfaceStore();
    store.add(pod('a', '10.0.0.2'));
    const pods = podsByIp(store);
    expect(pods.lookup('10.0.0.2')).toEqual({ name: 'a', namespace: 'ns' });
    expect(pods.lookup('10.0.0.3')).toBeUndefined();
    store.add(pod('b', '10.0.0.3'));
    expect(pods.lookup('10.0.0.3')).toEqual({ name: 'b', namespace: 'ns' });
    pods.close();
  });

  it('names Service ports from AntreaProxy’s ServiceLB flows, as Antrea’s ServicePortName prints', () => {
    const owners: Record<string, Flow[]> = {
      'service/prod/web/http/TCP': [
        { match: buildMatch({ tcp: true, nw_dst: '10.96.0.10', tcp_dst: 80 }), actions: [] },
        { match: buildMatch({ ip: true, nw_dst: '10.10.0.3', reg7: 1 }), actions: [] },
      ],
      'service/kube-system/dns//UDP': [
        { match: buildMatch({ udp: true, nw_dst: '10.96.0.53', udp_dst: 53 }), actions: [] },
      ],
    };
    let t = 0;
    const lookup = servicePortNames(
      {
        ownersWithPrefix: (p) => Object.keys(owners).filter((o) => o.startsWith(p)),
        owned: (o) => owners[o] ?? [],
      },
      () => t,
    );
    expect(lookup('10.96.0.10', 80, 6)).toBe('prod/web:http');
    expect(lookup('10.96.0.53', 53, 17)).toBe('kube-system/dns');
    expect(lookup('10.96.0.10', 80, 17)).toBeUndefined();
    // A Service added later is found once the index is older than a second.
    owners['service/prod/api/grpc/TCP'] = [
      { match: buildMatch({ tcp: true, nw_dst: '10.96.0.11', tcp_dst: 9000 }), actions: [] },
    ];
    expect(lookup('10.96.0.11', 9000, 6)).toBeUndefined();
    t = 1000;
    expect(lookup('10.96.0.11', 9000, 6)).toBe('prod/api:grpc');
  });

  it('describes rules as Antrea’s records do', () => {
    const rule = (sourceRef: object | undefined, name?: string) =>
      ({ policy: { metadata: { name: 'uid-1' }, sourceRef }, rule: { name } }) as unknown as CompletedRule;
    expect(policyRuleRef(rule({ type: 'AntreaClusterNetworkPolicy', name: 'acnp', uid: 'u' }, 'r0'))).toEqual(
      {
        policyName: 'acnp',
        policyNamespace: '',
        policyType: 3,
        ruleName: 'r0',
      },
    );
    expect(
      policyRuleRef(rule({ type: 'K8sNetworkPolicy', namespace: 'prod', name: 'np', uid: 'u' })),
    ).toMatchObject({
      policyNamespace: 'prod',
      policyType: 1,
      ruleName: '',
    });
    expect(policyRuleRef(rule({ type: 'AdminNetworkPolicy', name: 'anp', uid: 'u' })).policyType).toBe(0);
  });
});
