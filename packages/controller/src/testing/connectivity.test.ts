import { describe, expect, it } from 'vitest';
import type { CrdClusterNetworkPolicy } from '../inputs.js';
import { ConnectivityOracle, type Endpoint } from './connectivity.js';
import { namespace, networkPolicy, newWorld, pod } from './fixtures.js';

const ep = (ns: string, name: string, ip: string): Endpoint => ({ namespace: ns, name, ip, ports: [] });
const acnp = (name: string, spec: Partial<CrdClusterNetworkPolicy['spec']>): CrdClusterNetworkPolicy => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { priority: 1, appliedTo: [{ podSelector: { matchLabels: { app: 'server' } } }], ...spec },
});

describe('tier ordering through the computed objects', () => {
  const setup = () => {
    const w = newWorld();
    w.engine.upsertNamespace(namespace('x'));
    w.engine.upsertPod(pod('x', 'server', { app: 'server' }, { ip: '10.0.0.1' }));
    w.engine.upsertPod(pod('x', 'client', { app: 'client' }, { ip: '10.0.0.2' }));
    return w;
  };
  const server = ep('x', 'server', '10.0.0.1');
  const client = ep('x', 'client', '10.0.0.2');

  it('lets a higher tier Drop win over a K8s allow, and Pass defer to K8s isolation', () => {
    const w = setup();
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'allow-80', {
        podSelector: {},
        policyTypes: ['Ingress'],
        ingress: [{ ports: [{ protocol: 'TCP', port: 80 }] }],
      }),
    );
    w.engine.upsertClusterNetworkPolicy(
      acnp('drop-81', {
        tier: 'securityops',
        ingress: [
          {
            action: 'Drop',
            ports: [{ protocol: 'TCP', port: 80 }],
            from: [{ podSelector: { matchLabels: { app: 'client' } } }],
          },
        ],
      }),
    );
    w.engine.upsertClusterNetworkPolicy(
      acnp('pass-443', {
        tier: 'emergency',
        ingress: [{ action: 'Pass', ports: [{ protocol: 'TCP', port: 443 }] }],
      }),
    );
    w.engine.flush();
    const o = new ConnectivityOracle(w);
    expect(o.verdict(client, server, 80, 'TCP')).toBe('drop');
    expect(o.verdict(client, server, 443, 'TCP')).toBe('drop'); // passed to K8s, which isolates
    w.engine.deleteK8sNetworkPolicy('x', 'allow-80');
    w.engine.flush();
    expect(new ConnectivityOracle(w).verdict(client, server, 443, 'TCP')).toBe('allow');
  });

  it('applies the baseline tier only where no K8s NetworkPolicy isolates', () => {
    const w = setup();
    w.engine.upsertClusterNetworkPolicy(
      acnp('baseline-reject', { tier: 'baseline', ingress: [{ action: 'Reject' }] }),
    );
    w.engine.flush();
    expect(new ConnectivityOracle(w).verdict(client, server, 80, 'TCP')).toBe('reject');
    w.engine.upsertK8sNetworkPolicy(
      networkPolicy('x', 'allow-all', { podSelector: {}, policyTypes: ['Ingress'], ingress: [{}] }),
    );
    w.engine.flush();
    expect(new ConnectivityOracle(w).verdict(client, server, 80, 'TCP')).toBe('allow');
  });
});
