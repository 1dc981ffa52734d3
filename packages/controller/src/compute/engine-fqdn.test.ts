// toFQDN peers: the controller resolves nothing (agents intercept DNS); it passes each pattern, in
// rule order, as NetworkPolicyPeer.fqdns next to the peer's AddressGroups and ipBlocks, as
// Antrea's toAntreaPeerForCRD does.
import { decodeNetworkPolicy, encodeNetworkPolicy } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { CrdClusterNetworkPolicy, CrdNetworkPolicy } from '../inputs.js';
import { toWireNetworkPolicy } from '../store/convert.js';
import { namespace, newWorld, pod } from '../testing/fixtures.js';
import { normalizedUID } from '../uuid.js';

function setup() {
  const w = newWorld();
  w.engine.upsertNamespace(namespace('x'));
  w.engine.upsertPod(pod('x', 'client', { app: 'client' }, { node: 'n1', ip: '10.0.0.1' }));
  return w;
}

function stored(w: ReturnType<typeof newWorld>) {
  return w.networkPolicies.list().items[0]!.object;
}

describe('toFQDN peers', () => {
  it('ACNP egress: patterns kept in order beside ipBlocks and AddressGroups; rule services unchanged', () => {
    const w = setup();
    const acnp: CrdClusterNetworkPolicy = {
      metadata: { name: 'fqdn', uid: 'uid-fqdn', generation: 1 },
      spec: {
        priority: 1,
        appliedTo: [{ podSelector: { matchLabels: { app: 'client' } } }],
        egress: [
          {
            action: 'Allow',
            name: 'dns-names',
            ports: [{ protocol: 'TCP', port: 443 }],
            to: [
              { fqdn: '*.example.com' },
              { ipBlock: { cidr: '192.0.2.0/24' } },
              { fqdn: 'db.internal' },
              { podSelector: { matchLabels: { app: 'db' } } },
            ],
          },
          { action: 'Drop', name: 'rest', to: [{ fqdn: '*' }] },
        ],
      },
    };
    w.engine.upsertClusterNetworkPolicy(acnp);
    w.engine.flush();
    const [allow, drop] = stored(w).rules;
    expect(allow!.to!.fqdns).toEqual(['*.example.com', 'db.internal']);
    expect(allow!.to!.addressGroups).toEqual([normalizedUID('podSelector=app=db')]);
    expect(allow!.to!.ipBlocks).toHaveLength(1);
    expect(allow!.services).toEqual([{ protocol: 'TCP', port: 443 }]);
    // A peer of FQDNs only: no AddressGroup and no ipBlock, so not match-all either.
    expect(drop!.to).toEqual({ fqdns: ['*'] });
    // On the wire: NetworkPolicyPeer field 3 (repeated string), decoded back by an agent.
    const bytes = encodeNetworkPolicy(toWireNetworkPolicy(stored(w), 1));
    expect(Buffer.from(bytes).toString('hex')).toContain(
      `1a0d${Buffer.from('*.example.com').toString('hex')}`,
    );
    const decoded = decodeNetworkPolicy(bytes);
    expect(decoded.rules![0]!.to!.fqdns).toEqual(['*.example.com', 'db.internal']);
    expect(decoded.rules![1]!.to!.fqdns).toEqual(['*']);
  });

  it('ANNP egress: same peer shape; changing a pattern changes the stored policy', () => {
    const w = setup();
    const annp = (pattern: string): CrdNetworkPolicy => ({
      metadata: { namespace: 'x', name: 'fqdn', uid: 'uid-annp-fqdn', generation: 1 },
      spec: {
        priority: 1,
        appliedTo: [{ podSelector: {} }],
        egress: [{ action: 'Reject', name: 'r', to: [{ fqdn: pattern }] }],
      },
    });
    w.engine.upsertAntreaNetworkPolicy(annp('api.example.com'));
    w.engine.flush();
    expect(stored(w).rules[0]!.to).toEqual({ fqdns: ['api.example.com'] });
    const before = w.networkPolicies.list().items[0]!.resourceVersion;
    w.engine.upsertAntreaNetworkPolicy(annp('*.example.org'));
    w.engine.flush();
    expect(stored(w).rules[0]!.to).toEqual({ fqdns: ['*.example.org'] });
    expect(w.networkPolicies.list().items[0]!.resourceVersion).toBeGreaterThan(before);
  });
});
