import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeRequestError } from '../errors.js';
import { FakeManagedStore } from '../k8s/fake-managed-store.test-support.js';
import { FakeCcpChannel } from '../nsx/fake-ccp-channel.test-support.js';
import { CcpAdapter } from './ccp-adapter.js';
import { feed, gp, group, podTag, policy, rule } from './translate/fixtures.test-support.js';

const web = group('web', [podTag('dis:k8s:app|web')]);
const allowWeb = (extra = {}) =>
  policy('allow-web', [
    rule('allow-web', 'r1', { rule_id: 11, direction: 'IN', source_groups: [gp('web')], ...extra }),
  ]);
/** A field of a managed ACNP's spec (undefined while it does not exist). */
function spec(store: FakeManagedStore, name: string): Record<string, unknown> {
  return (store.get('ClusterNetworkPolicy', name)?.spec ?? {}) as Record<string, unknown>;
}
const dropAll = policy('drop-all', [rule('drop-all', 'r1', { rule_id: 21, action: 'DROP' })], {
  sequence_number: 9,
});

async function until(cond: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

let adapters: CcpAdapter[] = [];
function adapter(channel: FakeCcpChannel, store: FakeManagedStore, extra = {}): CcpAdapter {
  const a = new CcpAdapter({
    channel,
    store,
    logger: pino({ level: 'silent' }),
    longPollMs: 200,
    backoffInitialMs: 10,
    backoffMaxMs: 40,
    debounceMs: 5,
    ...extra,
  });
  adapters.push(a);
  return a;
}
afterEach(async () => {
  await Promise.all(adapters.map((a) => a.stop()));
  adapters = [];
});

describe('CCP adapter sync loop', () => {
  it('creates Tiers, groups and policies; applies NSX changes and deletions', async () => {
    const store = new FakeManagedStore();
    const channel = new FakeCcpChannel(feed([allowWeb(), dropAll], [web]));
    const a = adapter(channel, store);
    await a.start();
    await until(() => store.names('ClusterNetworkPolicy').length === 2, 'policies');
    expect(store.names('Tier')).toEqual([
      'nsx-category-application',
      'nsx-category-emergency',
      'nsx-category-environment',
      'nsx-category-ethernet',
      'nsx-category-infrastructure',
    ]);
    expect(store.names('ClusterGroup')).toEqual(['uid-web', 'uid-web-0']);
    // Dependencies first: Tiers, child group, parent group, then policies.
    const creates = store.ops.filter((o) => o.startsWith('create'));
    expect(creates.indexOf('create ClusterGroup uid-web-0')).toBeLessThan(
      creates.indexOf('create ClusterGroup uid-web'),
    );
    expect(creates.indexOf('create ClusterGroup uid-web')).toBeLessThan(
      creates.indexOf('create ClusterNetworkPolicy uid-allow-web'),
    );
    expect(a.health().status).toBe('UP');

    // A rule change updates the ACNP in place.
    channel.setFeed(feed([allowWeb({ action: 'REJECT' }), dropAll], [web]));
    await until(
      () =>
        (spec(store, 'uid-allow-web')['ingress'] as { action: string }[] | undefined)?.[0]?.action ===
        'Reject',
      'rule change',
    );

    // Deleting the policy in NSX deletes the ACNP and the group nobody uses any more.
    channel.setFeed(feed([dropAll], [web]));
    await until(() => store.names('ClusterNetworkPolicy').length === 1, 'deletion');
    await until(() => store.names('ClusterGroup').length === 0, 'group deletion');
    expect(store.ops.slice(-3)).toEqual([
      'delete ClusterNetworkPolicy uid-allow-web',
      'delete ClusterGroup uid-web',
      'delete ClusterGroup uid-web-0',
    ]);
  });

  it('a restart removes managed objects NSX no longer has (stateless full resync)', async () => {
    const store = new FakeManagedStore();
    const stale = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: {
        name: 'uid-gone',
        labels: { 'ccp-adapter.antrea.tanzu.vmware.com/managedBy': 'ccp-adapter' },
      },
      spec: { tier: 'nsx-category-application', priority: 1 },
    };
    store.seed('ClusterNetworkPolicy', stale);
    store.seed('ClusterGroup', { metadata: { name: 'uid-old' }, spec: {} });
    const a = adapter(new FakeCcpChannel(feed([dropAll])), store);
    await a.start();
    await until(() => store.names('ClusterNetworkPolicy').join() === 'uid-drop-all', 'resync');
    await until(() => store.names('ClusterGroup').length === 0, 'stale group removal');
  });

  it('reverts edits and deletions of managed objects', async () => {
    const store = new FakeManagedStore();
    const a = adapter(new FakeCcpChannel(feed([allowWeb()], [web])), store);
    await a.start();
    await until(() => store.get('ClusterNetworkPolicy', 'uid-allow-web') !== undefined, 'create');
    const original = structuredClone(store.get('ClusterNetworkPolicy', 'uid-allow-web')?.spec);
    store.externalEdit('ClusterNetworkPolicy', 'uid-allow-web', (o) => {
      (o.spec as { priority: number }).priority = 99;
      o.metadata = {
        ...o.metadata,
        annotations: { extra: 'kept' },
        labels: { ...o.metadata?.labels, mine: 'x' },
      };
    });
    await until(() => spec(store, 'uid-allow-web')['priority'] !== 99, 'revert');
    const reverted = store.get('ClusterNetworkPolicy', 'uid-allow-web');
    expect(reverted?.spec).toEqual(original);
    // Our annotations come back; foreign labels/annotations stay.
    expect(reverted?.metadata?.annotations?.['ccp-adapter.antrea.tanzu.vmware.com/display-name']).toBe(
      'allow-web',
    );
    expect(reverted?.metadata?.annotations?.['extra']).toBe('kept');
    expect(reverted?.metadata?.labels?.['mine']).toBe('x');

    store.externalDelete('ClusterGroup', 'uid-web-0');
    await until(() => store.get('ClusterGroup', 'uid-web-0') !== undefined, 'recreate');
  });

  it('NSX unreachable: nothing is deleted, health is DEGRADED, retries with backoff, resyncs on reconnect', async () => {
    const store = new FakeManagedStore();
    const channel = new FakeCcpChannel(feed([allowWeb(), dropAll], [web]));
    const a = adapter(channel, store);
    await a.start();
    await until(() => store.names('ClusterNetworkPolicy').length === 2, 'initial');
    const opsBefore = store.ops.length;
    channel.setReachable(false);
    await until(() => a.health().status === 'DEGRADED', 'degraded');
    const calls = channel.calls;
    await new Promise((r) => setTimeout(r, 150));
    expect(channel.calls - calls).toBeGreaterThan(1); // retrying
    expect(channel.calls - calls).toBeLessThan(15); // ...with backoff, not a busy loop
    expect(store.ops.length).toBe(opsBefore);
    expect(a.health().conditions.find((c) => c.type === 'NSXConnectionUp')).toMatchObject({
      status: 'FALSE',
      reason: 'NSX_UNREACHABLE',
    });
    // Edits are still reverted from the last known desired state while NSX is away.
    store.externalEdit('ClusterNetworkPolicy', 'uid-drop-all', (o) => {
      (o.spec as { priority: number }).priority = 50;
    });
    await until(() => spec(store, 'uid-drop-all')['priority'] !== 50, 'revert while NSX down');

    // While away, NSX deleted a policy; after reconnect the full resync removes it.
    channel.setFeed(feed([dropAll], [web]));
    channel.setReachable(true);
    await until(
      () => store.names('ClusterNetworkPolicy').join() === 'uid-drop-all',
      'resync after reconnect',
    );
    await until(() => a.health().status === 'UP', 'healthy');
  });

  it('starting while NSX is unreachable touches nothing', async () => {
    const store = new FakeManagedStore();
    store.seed('ClusterNetworkPolicy', { metadata: { name: 'uid-kept' }, spec: {} });
    const channel = new FakeCcpChannel(feed([]));
    channel.reachable = false;
    const a = adapter(channel, store);
    await a.start();
    await until(() => channel.calls >= 3, 'retries');
    expect(store.ops).toEqual([]);
    expect(a.health().status).toBe('DEGRADED');
  });

  it('reports realization: translation errors, in progress, realized, failed, apply errors, timeout', async () => {
    const store = new FakeManagedStore();
    const bad = policy('bad', [rule('bad', 'l7', { profiles: ['/infra/context-profiles/HTTP'] })]);
    const channel = new FakeCcpChannel(feed([allowWeb(), bad, dropAll], [web]));
    const now = { t: 1_000_000 };
    const a = adapter(channel, store, {
      clock: { now: () => now.t, sleep: (ms: number) => new Promise((r) => setTimeout(r, Math.min(ms, 20))) },
      realizeTimeoutMs: 60_000,
    });
    store.failWith = (op, kind, name) =>
      op === 'create' && kind === 'ClusterNetworkPolicy' && name === 'uid-drop-all'
        ? new KubeRequestError('admission webhook denied', 400)
        : undefined;
    await a.start();
    const path = (id: string) => `/infra/domains/default/security-policies/${id}`;
    await until(() => channel.latest().size === 3, 'first reports');
    expect(channel.latest().get(path('bad'))).toEqual({
      intent_path: path('bad'),
      intent_revision: 3,
      state: 'ERROR',
      errors: [{ error_code: 1, error_message: expect.stringMatching(/context profiles/) }],
    });
    expect(channel.latest().get(path('allow-web'))).toEqual({
      intent_path: path('allow-web'),
      intent_revision: 3,
      state: 'IN_PROGRESS',
    });
    expect(channel.latest().get(path('drop-all'))).toMatchObject({
      state: 'ERROR',
      errors: [{ error_code: 2, error_message: expect.stringMatching(/webhook denied/) }],
    });
    expect(a.health().status).toBe('DEGRADED');

    // The Antrea controller realizes the policy on every Node.
    store.externalEdit('ClusterNetworkPolicy', 'uid-allow-web', (o) => {
      o.status = {
        phase: 'Realized',
        observedGeneration: 1,
        currentNodesRealized: 3,
        desiredNodesRealized: 3,
      };
    });
    await until(() => channel.latest().get(path('allow-web'))?.state === 'SUCCESS', 'success');
    expect(channel.latest().get(path('allow-web'))).toEqual({
      intent_path: path('allow-web'),
      intent_revision: 3,
      state: 'SUCCESS',
      current_nodes_realized: 3,
      desired_nodes_realized: 3,
    });
    store.externalEdit('ClusterNetworkPolicy', 'uid-allow-web', (o) => {
      o.status = {
        phase: 'Failed',
        observedGeneration: 1,
        currentNodesRealized: 1,
        desiredNodesRealized: 3,
        conditions: [{ type: 'Realizable', status: 'False', message: 'rule conflict' }],
      };
    });
    await until(() => channel.latest().get(path('allow-web'))?.state === 'ERROR', 'failure');
    expect(channel.latest().get(path('allow-web'))?.errors).toEqual([
      { error_code: 3, error_message: 'rule conflict' },
    ]);

    // The webhook lets it through; then nobody realizes it for longer than the timeout.
    store.failWith = undefined;
    await until(() => store.get('ClusterNetworkPolicy', 'uid-drop-all') !== undefined, 'retry create');
    await until(() => channel.latest().get(path('drop-all'))?.state === 'IN_PROGRESS', 'in progress');
    now.t += 61_000;
    await until(() => channel.latest().get(path('drop-all'))?.state === 'ERROR', 'timeout', 5000);
    expect(channel.latest().get(path('drop-all'))?.errors).toEqual([
      { error_code: 4, error_message: 'not realized within 60 s' },
    ]);
    // Unchanged states are not re-sent.
    const n = channel.reports.length;
    store.externalEdit('Tier', 'nsx-category-emergency', () => undefined);
    await new Promise((r) => setTimeout(r, 60));
    expect(channel.reports.length).toBe(n);
  });

  it('polls a source without generations and acts only when the content changes', async () => {
    const store = new FakeManagedStore();
    const channel = new FakeCcpChannel(feed([dropAll]));
    channel.generations = false;
    const a = adapter(channel, store, { longPollMs: 10 });
    await a.start();
    await until(() => store.names('ClusterNetworkPolicy').length === 1, 'initial');
    await until(() => channel.calls > 5, 'polling');
    const writes = store.ops.length;
    const reports = channel.reports.length;
    await until(() => channel.calls > 10, 'more polling');
    expect(store.ops.length).toBe(writes);
    expect(channel.reports.length).toBe(reports);
    channel.setFeed(feed([dropAll, allowWeb()], [web]));
    await until(() => store.names('ClusterNetworkPolicy').length === 2, 'change picked up');
  });

  it('stop is idempotent and stops the store', async () => {
    const store = new FakeManagedStore();
    const a = adapter(new FakeCcpChannel(feed([])), store);
    await a.start();
    await Promise.all([a.stop(), a.stop()]);
    await a.stop();
    expect(store.stopped).toBe(true);
  });
});
