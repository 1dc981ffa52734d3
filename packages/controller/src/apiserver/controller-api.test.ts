import { diffGroupMembers, type GroupMember, parseIP } from '@antrea-ts/apis';
import {
  type ApiObject,
  type ApiRequest,
  jsonCodec,
  parseListOptions,
  ResourceRegistry,
  type UserInfo,
  type WatchSink,
} from '@antrea-ts/apiserver';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../clock.js';
import { RamStore } from '../store/ram-store.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';
import { type ControllerApi, registerControllerApi } from './controller-api.js';
import { StatsAggregator } from './stats-aggregator.js';

const logger = pino({ level: 'silent' });
const clock: Clock = { now: () => new Date('2026-01-01T00:00:00Z'), monotonicMs: () => 0 };

interface Sent {
  type: string;
  object: ApiObject;
}

class FakeSink implements WatchSink {
  readonly codec = jsonCodec;
  readonly events: Sent[] = [];
  readonly #abort = new AbortController();
  limit = Number.POSITIVE_INFINITY;
  send(type: Sent['type'], object: ApiObject): boolean {
    if (this.closed) return false;
    if (this.events.length >= this.limit) {
      this.close();
      return false;
    }
    this.events.push({ type, object });
    return true;
  }
  /** Initial events arrive as batches of JSON frames: one line per event. */
  sendFrame(frame: Uint8Array): boolean {
    if (this.closed) return false;
    for (const line of Buffer.from(frame).toString().split('\n')) {
      if (line) this.events.push(JSON.parse(line) as Sent);
    }
    return true;
  }
  get closed(): boolean {
    return this.#abort.signal.aborted;
  }
  get signal(): AbortSignal {
    return this.#abort.signal;
  }
  close(): void {
    this.#abort.abort();
  }
  take(): Sent[] {
    return this.events.splice(0);
  }
}

const admin: UserInfo = {
  username: 'admin',
  groups: ['system:masters'],
  extra: {},
  authenticatedBy: 'token',
};
const agentOf = (node: string): UserInfo => ({
  username: 'system:serviceaccount:kube-system:antrea-agent',
  groups: [],
  extra: {},
  nodeName: node,
  authenticatedBy: 'token',
});

function request(
  resource: string,
  verb: 'list' | 'get' | 'watch' | 'create',
  query = '',
  opts: { user?: UserInfo; name?: string; subresource?: string; body?: unknown; namespace?: string } = {},
): ApiRequest {
  return {
    info: {
      isResourceRequest: true,
      path: '',
      verb,
      apiPrefix: 'apis',
      apiGroup: resource.includes('stats') ? 'stats.antrea.io' : 'controlplane.antrea.io',
      apiVersion: 'v1beta2',
      namespace: opts.namespace ?? '',
      resource,
      subresource: opts.subresource ?? '',
      name: opts.name ?? '',
      parts: [],
    } as unknown as ApiRequest['info'],
    user: opts.user ?? admin,
    options: parseListOptions(new URLSearchParams(query)),
    signal: new AbortController().signal,
    body: opts.body,
  };
}

const pod = (ns: string, name: string, ip?: string): GroupMember => ({
  pod: { namespace: ns, name },
  ...(ip ? { ips: [parseIP(ip)!] } : {}),
});

function np(name: string, span: string[], atg = 'atg1'): InternalNetworkPolicy {
  return {
    name,
    uid: name,
    generation: 1,
    sourceRef: { type: 'AntreaClusterNetworkPolicy', name: `acnp-${name}`, uid: name },
    rules: [
      {
        direction: 'In',
        priority: 0,
        action: 'Allow',
        enableLogging: false,
        from: { addressGroups: ['ag1'] },
      },
    ],
    appliedToGroups: [atg],
    priority: 1,
    tierPriority: 250,
    appliedToPerRule: false,
    span: new Set(span),
  };
}

function ag(members: GroupMember[], span: string[]): InternalAddressGroup {
  return { name: 'ag1', uid: 'ag1', members, span: new Set(span) };
}

function atg(byNode: Record<string, GroupMember[]>): InternalAppliedToGroup {
  return {
    name: 'atg1',
    uid: 'atg1',
    membersByNode: new Map(Object.entries(byNode)),
    span: new Set(Object.keys(byNode)),
  };
}

describe('controller API handlers', () => {
  let nps: RamStore<InternalNetworkPolicy>;
  let atgs: RamStore<InternalAppliedToGroup>;
  let ags: RamStore<InternalAddressGroup>;
  let registry: ResourceRegistry;
  let api: ControllerApi;
  let stats: StatsAggregator;
  const reports: unknown[] = [];

  const handler = (resource: string) =>
    registry.lookup('controlplane.antrea.io', 'v1beta2', resource)!.handler;
  async function watch(resource: string, query: string, user?: UserInfo): Promise<FakeSink> {
    const sink = new FakeSink();
    await handler(resource).watch!(request(resource, 'watch', query, user ? { user } : {}), sink);
    return sink;
  }
  const types = (s: Sent[]) =>
    s.map((e) => `${e.type}:${(e.object.metadata as { name?: string }).name ?? ''}`);

  beforeEach(() => {
    nps = new RamStore('NetworkPolicy');
    atgs = new RamStore('AppliedToGroup');
    ags = new RamStore('AddressGroup');
    registry = new ResourceRegistry();
    stats = new StatsAggregator(nps, clock);
    reports.length = 0;
    api = registerControllerApi(registry, {
      logger,
      networkPolicies: nps,
      appliedToGroups: atgs,
      addressGroups: ags,
      reportStatus: (s) => reports.push(s),
      stats,
      controllerInfo: () => ({
        apiVersion: 'system.antrea.io/v1beta1',
        kind: 'AntreaControllerInfo',
        metadata: { name: 'antrea-controller' },
      }),
    });
    api.start();
  });

  it('sends a new watcher ADDED for its span only, then a BOOKMARK at the store version', async () => {
    nps.put(np('p1', ['n1']));
    nps.put(np('p2', ['n2']));
    nps.put(np('p3', ['n1', 'n2']));
    const s = await watch('networkpolicies', 'fieldSelector=nodeName%3Dn1');
    const ev = s.take();
    expect(types(ev)).toEqual(['ADDED:p1', 'ADDED:p3', 'BOOKMARK:']);
    expect(ev[2]!.object).toMatchObject({ kind: 'NetworkPolicy', metadata: { resourceVersion: '3' } });
    // A watcher of every Node (antctl) gets everything.
    expect(types((await watch('networkpolicies', '')).take())).toEqual([
      'ADDED:p1',
      'ADDED:p2',
      'ADDED:p3',
      'BOOKMARK:',
    ]);
  });

  it('turns span changes into ADDED/DELETED per watcher; DELETED carries metadata only', async () => {
    nps.put(np('p1', ['n1']));
    const s1 = await watch('networkpolicies', 'fieldSelector=nodeName%3Dn1');
    const s2 = await watch('networkpolicies', 'fieldSelector=nodeName%3Dn2');
    s1.take();
    s2.take();
    nps.put(np('p1', ['n2'])); // leaves n1, enters n2
    expect(types(s1.take())).toEqual(['DELETED:p1']);
    const added = s2.take();
    expect(types(added)).toEqual(['ADDED:p1']);
    expect(added[0]!.object).toMatchObject({
      rules: [expect.anything()],
      metadata: { resourceVersion: '2' },
    });
    nps.put(np('p1', ['n1', 'n2']));
    expect(types(s1.take())).toEqual(['ADDED:p1']);
    expect(types(s2.take())).toEqual(['MODIFIED:p1']);
    nps.delete('p1');
    const del = s1.take();
    expect(del[0]!.object).toEqual({
      apiVersion: 'controlplane.antrea.io/v1beta2',
      kind: 'NetworkPolicy',
      metadata: { name: 'p1', uid: 'p1', resourceVersion: '4' },
    });
    // Both watchers get the very same object: the server encodes it once.
    expect(s2.take()[0]!.object).toBe(del[0]!.object);
    // Unrelated Nodes see nothing.
    const s3 = await watch('networkpolicies', 'fieldSelector=nodeName%3Dn3');
    nps.put(np('p9', ['n1']));
    expect(types(s3.take())).toEqual(['BOOKMARK:']);
  });

  it('sends AddressGroup changes as one shared patch, and nothing for span-only changes', async () => {
    ags.put(ag([pod('x', 'a', '10.0.0.1'), pod('x', 'b', '10.0.0.2')], ['n1', 'n2']));
    const s1 = await watch('addressgroups', 'fieldSelector=nodeName%3Dn1');
    const s2 = await watch('addressgroups', 'fieldSelector=nodeName%3Dn2');
    expect(types(s1.take())).toEqual(['ADDED:ag1', 'BOOKMARK:']);
    s2.take();
    ags.put(ag([pod('x', 'a', '10.0.0.1'), pod('x', 'b', '10.0.0.3')], ['n1', 'n2']));
    const [e1] = s1.take();
    const [e2] = s2.take();
    expect(e1!.type).toBe('MODIFIED');
    expect(e1!.object).toMatchObject({
      kind: 'AddressGroupPatch',
      addedGroupMembers: [pod('x', 'b', '10.0.0.3')],
      removedGroupMembers: [pod('x', 'b', '10.0.0.2')],
    });
    expect(e1!.object.groupMembers).toBeUndefined();
    expect(e2!.object).toBe(e1!.object);
    const prev = ags.get('ag1')!.object;
    ags.put({ ...prev, span: new Set(['n1']) }); // same members, n2 leaves
    expect(s1.take()).toEqual([]);
    expect(types(s2.take())).toEqual(['DELETED:ag1']);
  });

  it('sends each Node only its own AppliedToGroup members and per-Node patches', async () => {
    atgs.put(atg({ n1: [pod('x', 'a')], n2: [pod('x', 'b')] }));
    const s1 = await watch('appliedtogroups', 'fieldSelector=nodeName%3Dn1');
    const s2 = await watch('appliedtogroups', 'fieldSelector=nodeName%3Dn2');
    expect(s1.take()[0]!.object.groupMembers).toEqual([pod('x', 'a')]);
    s2.take();
    atgs.put(atg({ n1: [pod('x', 'a'), pod('x', 'c')], n2: [pod('x', 'b')] }));
    expect(s1.take()).toEqual([
      {
        type: 'MODIFIED',
        object: expect.objectContaining({ kind: 'AppliedToGroupPatch', addedGroupMembers: [pod('x', 'c')] }),
      },
    ]);
    expect(s2.take()).toEqual([]);
    // Listing for a Node also filters members.
    const list = (await handler('appliedtogroups').list!(
      request('appliedtogroups', 'list', 'fieldSelector=nodeName%3Dn2'),
    )) as { items: ApiObject[] };
    expect(list.items.map((i) => i.groupMembers)).toEqual([[pod('x', 'b')]]);
  });

  it('limits a Node-bound caller to its Node: other Nodes are 403, get outside the span 404', async () => {
    nps.put(np('p1', ['n1']));
    nps.put(np('p2', ['n2']));
    const own = await watch('networkpolicies', '', agentOf('n1'));
    expect(types(own.take())).toEqual(['ADDED:p1', 'BOOKMARK:']);
    await expect(
      watch('networkpolicies', 'fieldSelector=nodeName%3Dn2', agentOf('n1')),
    ).rejects.toMatchObject({
      code: 403,
    });
    await expect(
      Promise.resolve().then(() =>
        handler('networkpolicies').get!(
          request('networkpolicies', 'get', '', { name: 'p2', user: agentOf('n1') }),
        ),
      ),
    ).rejects.toMatchObject({ code: 404 });
    expect(
      await handler('networkpolicies').get!(request('networkpolicies', 'get', '', { name: 'p2' })),
    ).toMatchObject({ metadata: { name: 'p2' } });
    await expect(watch('networkpolicies', 'fieldSelector=spec.x%3Dy')).rejects.toMatchObject({ code: 400 });
  });

  it('answers 410 to a watch from an old resourceVersion and resumes at the current one', async () => {
    nps.put(np('p1', ['n1']));
    nps.put(np('p2', ['n1']));
    await expect(watch('networkpolicies', 'resourceVersion=1')).rejects.toMatchObject({ code: 410 });
    const s = await watch('networkpolicies', 'resourceVersion=2');
    expect(types(s.take())).toEqual(['BOOKMARK:']);
    nps.put(np('p3', ['n1']));
    expect(types(s.take())).toEqual(['ADDED:p3']);
    // A watch-list client learns where the initial events end.
    const wl = await watch('networkpolicies', 'sendInitialEvents=true&resourceVersionMatch=NotOlderThan');
    expect(wl.take().at(-1)).toMatchObject({
      type: 'BOOKMARK',
      object: { metadata: { resourceVersion: '3', annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
  });

  it('forgets a watcher that was closed (too slow) and keeps serving the others', async () => {
    const slow = await watch('networkpolicies', 'fieldSelector=nodeName%3Dn1');
    const ok = await watch('networkpolicies', 'fieldSelector=nodeName%3Dn1');
    slow.limit = 2;
    expect(api.networkPolicies.watcherCount).toBe(2);
    for (let i = 0; i < 5; i++) nps.put(np(`p${i}`, ['n1']));
    expect(slow.closed).toBe(true);
    expect(api.networkPolicies.watcherCount).toBe(1);
    expect(ok.events.length).toBe(6);
    expect([...api.connectedNodes()]).toEqual(['n1']);
    ok.close();
    expect(api.connectedNodes().size).toBe(0);
  });

  it('feeds status reports to the status controller; a bound agent reports only for its Node', async () => {
    const sub = registry.lookup('controlplane.antrea.io', 'v1beta2', 'networkpolicies')!.subresources![0]!;
    const status = {
      metadata: { name: 'p1' },
      nodes: [{ nodeName: 'n1', generation: 1, realizationFailure: false }],
    };
    const res = await sub.handler.create!(
      request('networkpolicies', 'create', '', {
        name: 'p1',
        subresource: 'status',
        body: status,
        user: agentOf('n1'),
      }),
    );
    expect(res).toMatchObject({ kind: 'NetworkPolicyStatus' });
    expect(reports).toEqual([status]);
    await expect(
      Promise.resolve().then(() =>
        sub.handler.create!(
          request('networkpolicies', 'create', '', {
            name: 'p1',
            subresource: 'status',
            body: status,
            user: agentOf('n2'),
          }),
        ),
      ),
    ).rejects.toMatchObject({ code: 403 });
  });

  it('aggregates NodeStatsSummary deltas into stats.antrea.io per policy and rule', async () => {
    nps.put(np('u1', ['n1']));
    const create = handler('nodestatssummaries').create!;
    const summary = (node: string, packets: number) => ({
      metadata: { name: node },
      antreaClusterNetworkPolicies: [
        {
          networkPolicy: { type: 'AntreaClusterNetworkPolicy', name: 'acnp-u1', uid: 'u1' },
          trafficStats: { packets, bytes: packets * 100, sessions: 1 },
          ruleTrafficStats: [{ name: 'r1', trafficStats: { packets, bytes: packets * 100, sessions: 1 } }],
        },
        {
          networkPolicy: { type: 'AntreaClusterNetworkPolicy', name: 'gone', uid: 'gone' },
          trafficStats: { packets: 1, bytes: 1, sessions: 1 },
        },
      ],
    });
    await create(
      request('nodestatssummaries', 'create', '', { body: summary('n1', 2), user: agentOf('n1') }),
    );
    await create(request('nodestatssummaries', 'create', '', { body: summary('n2', 3) }));
    await expect(
      Promise.resolve().then(() =>
        create(request('nodestatssummaries', 'create', '', { body: summary('n2', 3), user: agentOf('n1') })),
      ),
    ).rejects.toMatchObject({ code: 403 });
    const statsHandler = registry.lookup(
      'stats.antrea.io',
      'v1alpha1',
      'antreaclusternetworkpolicystats',
    )!.handler;
    const list = (await statsHandler.list!(request('antreaclusternetworkpolicystats', 'list'))) as {
      items: ApiObject[];
    };
    expect(list.items).toEqual([
      {
        apiVersion: 'stats.antrea.io/v1alpha1',
        kind: 'AntreaClusterNetworkPolicyStats',
        metadata: { name: 'acnp-u1', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00.000Z' },
        trafficStats: { packets: 5, bytes: 500, sessions: 2 },
        ruleTrafficStats: [{ name: 'r1', trafficStats: { packets: 5, bytes: 500, sessions: 2 } }],
      },
    ]);
    nps.delete('u1');
    expect(
      ((await statsHandler.list!(request('antreaclusternetworkpolicystats', 'list'))) as { items: unknown[] })
        .items,
    ).toEqual([]);
  });
});

describe('diffGroupMembers, as the group patches use it', () => {
  it('matches unchanged members by identity and changed ones by key', () => {
    const a = pod('x', 'a', '10.0.0.1');
    const b = pod('x', 'b', '10.0.0.2');
    const bSame = pod('x', 'b', '10.0.0.2');
    const bMoved = pod('x', 'b', '10.0.0.9');
    expect(diffGroupMembers([a, b], [a, bSame])).toEqual({ added: [], removed: [] });
    expect(diffGroupMembers([a, b], [a, bMoved])).toEqual({ added: [bMoved], removed: [b] });
    expect(diffGroupMembers([a], [])).toEqual({ added: [], removed: [a] });
    // Reordered, inserted in the middle, removed from the middle.
    const c = pod('x', 'c', '10.0.0.3');
    expect(diffGroupMembers([a, b, c], [c, b, a])).toEqual({ added: [], removed: [] });
    expect(diffGroupMembers([a, c], [a, b, c])).toEqual({ added: [b], removed: [] });
    expect(diffGroupMembers([a, b, c], [a, c])).toEqual({ added: [], removed: [b] });
    expect(diffGroupMembers([a, b, c], [a, bMoved, c])).toEqual({ added: [bMoved], removed: [b] });
  });
});
