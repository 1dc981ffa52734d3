import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, SequentialIds } from '../clock.js';
import type { SimContext } from '../context.js';
import { loadDemo } from '../seed/demo.js';
import { ensureSystemObjects } from '../seed/system-objects.js';
import { memoryPersistence } from '../state/persistence.js';
import { SimStore } from '../state/sim-store.js';
import type { NsxObject, PolicyObject } from '../state/types.js';
import { CCP, G, P, SP, startTestSim, type TestSim } from '../test-support.js';
import { generateClientCertificate } from '../tls/self-signed.js';
import { clusterFeed, clusterFeedJson } from './clusters.js';
import { ALL_KINDS, ccpPath, containerClusterSpanKind, ruleKind, securityPolicyKind } from './kinds.js';
import { PolicyTree } from './policy-tree.js';

const CLUSTER_PATH = ccpPath('kind-a');
const D = '/infra/domains/default';

function context(store: SimStore): SimContext {
  const clock = new ManualClock();
  const ids = new SequentialIds();
  const tree = new PolicyTree({ store, clock, ids });
  for (const k of ALL_KINDS) tree.registerKind(k);
  return { store, tree, clock, ids, logger: pino({ level: 'silent' }), maxArchiveBytes: 0 };
}

/** The feed computed from scratch by a tree that has cached nothing. */
function referenceFeed(store: SimStore): string {
  const ctx = context(store);
  return JSON.stringify(clusterFeed(ctx, ctx.tree.require(CLUSTER_PATH)));
}

describe('cached CCP feed over HTTP', () => {
  let dir: string;
  let cert: string;
  let sim: TestSim;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nsx-sim-feed-'));
    cert = (await generateClientCertificate(dir, 'kind-a')).cert;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    sim = await startTestSim({ seed: true });
    expect((await sim.call('PUT', `${CCP}/kind-a`, { certificate: cert })).status).toBe(200);
  });
  afterEach(async () => {
    await sim.app.close();
  });

  /** Both feed endpoints answer exactly what a from-scratch build answers. */
  async function expectFresh(): Promise<NsxObject> {
    const rpc = await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed');
    const admin = await sim.call('GET', '/sim/clusters/kind-a/feed');
    expect(rpc.status).toBe(200);
    expect(rpc.raw).toBe(referenceFeed(sim.store));
    expect(admin.raw).toBe(rpc.raw);
    return rpc.body;
  }
  const ok = async (res: Promise<{ status: number; raw: string }>) => {
    const r = await res;
    expect(r.status, r.raw).toBe(200);
  };

  it('follows every kind of change: rules, groups, services, revise renumbering, rollback, spans', async () => {
    await ok(
      sim.call('PATCH', `${SP}/web-to-db/container-cluster-span/kind-a`, {
        container_cluster_path: CLUSTER_PATH,
      }),
    );
    await ok(
      sim.call('PATCH', `${SP}/k8s-core-dns/container-cluster-span/kind-a`, {
        container_cluster_path: CLUSTER_PATH,
      }),
    );
    const first = await expectFresh();
    expect((first['security_policies'] as NsxObject[]).map((p) => p['id'])).toEqual([
      'k8s-core-dns',
      'web-to-db',
    ]);
    await expectFresh(); // unchanged: served from the cache, still identical

    await ok(sim.call('PATCH', `${SP}/web-to-db/rules/default-drop`, { action: 'REJECT' }));
    const afterRule = await expectFresh();
    expect(JSON.stringify(afterRule)).toContain('"REJECT"');
    expect(afterRule['policy_generation']).toBeGreaterThan(first['policy_generation'] as number);

    // A referenced group changes outside every policy's subtree.
    await ok(
      sim.call('PATCH', `${G}/kube-dns`, {
        expression: [
          {
            resource_type: 'Condition',
            member_type: 'Pod',
            key: 'Tag',
            operator: 'EQUALS',
            value: 'dis:k8s:k|changed',
          },
        ],
      }),
    );
    expect(JSON.stringify(await expectFresh())).toContain('dis:k8s:k|changed');

    // A referenced service changes outside every policy's subtree (Antrea spans refuse nested services).
    await ok(
      sim.call('PATCH', `${SP}/web-to-db/rules/web`, {
        sequence_number: 100,
        services: ['/infra/services/web-8080'],
      }),
    );
    await expectFresh();
    await ok(
      sim.call('PATCH', `${P}/infra/services/web-8080/service-entries/tcp-8080`, {
        resource_type: 'L4PortSetServiceEntry',
        l4_protocol: 'TCP',
        destination_ports: ['9090'],
      }),
    );
    expect(JSON.stringify(await expectFresh())).toContain('"9090"');

    // revise with no room between neighbours renumbers siblings in place.
    await ok(sim.call('PATCH', `${SP}/web-to-db/rules/allow-web-mysql`, { sequence_number: 1 }));
    await ok(sim.call('PATCH', `${SP}/web-to-db/rules/drop-corp`, { sequence_number: 2 }));
    await expectFresh();
    const revised = await sim.call(
      'POST',
      `${SP}/web-to-db/rules/between?action=revise&operation=insert_after&anchor_path=${D}/security-policies/web-to-db/rules/allow-web-mysql`,
      { action: 'DROP' },
    );
    expect(revised.status).toBe(200);
    const renumbered = await expectFresh();
    const rules = (renumbered['security_policies'] as NsxObject[]).find((p) => p['id'] === 'web-to-db')?.[
      'rules'
    ] as NsxObject[];
    expect(rules.slice(0, 3).map((r) => [r['id'], r['sequence_number']])).toEqual([
      ['allow-web-mysql', 10],
      ['between', 20],
      ['drop-corp', 30],
    ]);

    // A hierarchical PATCH that fails half way is rolled back; the feed shows the old state.
    const before = (await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed')).raw;
    const failed = await sim.call('PATCH', `${P}/infra`, {
      children: [
        {
          resource_type: 'ChildDomain',
          Domain: {
            id: 'default',
            children: [
              {
                resource_type: 'ChildSecurityPolicy',
                SecurityPolicy: { id: 'web-to-db', rules: [{ id: 'only', action: 'DROP' }] },
              },
              {
                resource_type: 'ChildGroup',
                Group: {
                  id: 'bad',
                  group_type: ['ANTREA'],
                  expression: [
                    {
                      resource_type: 'Condition',
                      member_type: 'Pod',
                      key: 'Tag',
                      operator: 'EQUALS',
                      value: 'a|b|c',
                    },
                  ],
                },
              },
            ],
          },
        },
      ],
    });
    expect(failed.status).toBe(400);
    expect(await expectFresh()).toEqual(JSON.parse(before));

    await ok(sim.call('DELETE', `${SP}/k8s-core-dns/container-cluster-span/kind-a`));
    const unspanned = await expectFresh();
    expect((unspanned['security_policies'] as NsxObject[]).map((p) => p['id'])).toEqual(['web-to-db']);

    // Demo objects written again (PATCH): same content, new revisions.
    await ok(sim.call('POST', '/sim/seed'));
    await expectFresh();
  });

  it('a change that is not a policy change leaves the feed as it was', async () => {
    await ok(
      sim.call('PATCH', `${SP}/web-to-db/container-cluster-span/kind-a`, {
        container_cluster_path: CLUSTER_PATH,
      }),
    );
    const a = await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed');
    await ok(sim.call('PATCH', `${CCP}/kind-a/status`, { controller_status: { status: 'UP' } }));
    const b = await sim.call('GET', '/rpc/v1/clusters/kind-a/policy-feed');
    expect(b.raw).toBe(a.raw);
  });
});

describe('feed building reuses unchanged objects', () => {
  let ctx: SimContext;
  let ccp: PolicyObject;
  beforeEach(() => {
    ctx = context(new SimStore(memoryPersistence, pino({ level: 'silent' })));
    ensureSystemObjects(ctx.tree);
    loadDemo(ctx.tree, 'admin');
    ctx.tree.putRaw({
      id: 'kind-a',
      resource_type: 'ClusterControlPlane',
      path: CLUSTER_PATH,
      parent_path: '/infra/sites/default/enforcement-points/default',
      relative_path: 'kind-a',
      node_id: 'uuid-a',
      _revision: 0,
    });
    for (const p of ['k8s-core-dns', 'web-to-db'])
      ctx.tree.write(
        containerClusterSpanKind,
        `${D}/security-policies/${p}`,
        'kind-a',
        { container_cluster_path: CLUSTER_PATH },
        'PATCH',
        'admin',
      );
    ccp = ctx.tree.require(CLUSTER_PATH);
  });
  const policies = (f: NsxObject) => f['security_policies'] as NsxObject[];
  const groups = (f: NsxObject) => f['groups'] as NsxObject[];

  it('an unchanged tree answers the same objects; one rule change re-renders only its policy', () => {
    const a = clusterFeed(ctx, ccp);
    const b = clusterFeed(ctx, ccp);
    expect(policies(b)).toEqual(policies(a));
    policies(b).forEach((p, i) => {
      expect(p).toBe(policies(a)[i]);
    });
    expect(clusterFeedJson(ctx, ccp)).toBe(JSON.stringify(b));

    ctx.tree.write(
      ruleKind,
      `${D}/security-policies/web-to-db`,
      'drop-corp',
      { action: 'DROP' },
      'PATCH',
      'admin',
    );
    const c = clusterFeed(ctx, ccp);
    expect(policies(c)[0]).toBe(policies(a)[0]); // k8s-core-dns untouched
    expect(policies(c)[1]).not.toBe(policies(a)[1]);
    groups(c).forEach((g, i) => {
      expect(g).toBe(groups(a)[i]);
    });
    expect(JSON.stringify(c)).toContain('"DROP"');
    expect(clusterFeedJson(ctx, ccp)).toBe(JSON.stringify(c));
    expect(JSON.stringify(c)).toBe(JSON.stringify(clusterFeed(context(ctx.store), ccp)));
  });

  it('the serialized feed follows the policy generation even when the tree did not change', () => {
    const before = JSON.parse(clusterFeedJson(ctx, ccp));
    ctx.store.commit('admin');
    const after = JSON.parse(clusterFeedJson(ctx, ccp));
    expect(after.policy_generation).toBe(before.policy_generation + 1);
    expect(after.security_policies).toEqual(before.security_policies);
    // A write that changes nothing visible still yields a correct feed.
    ctx.tree.write(securityPolicyKind, D, 'web-to-db', {}, 'PATCH', 'admin');
    expect(clusterFeedJson(ctx, ccp)).toBe(JSON.stringify(clusterFeed(context(ctx.store), ccp)));
  });
});
