import { formatFlow, formatGroup } from '@antrea-ts/openflow';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../openflow/cookie.js';
import type { OwnerChange } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import { SERVICE_PROXY_NAME_LABEL, serviceKey } from './model.js';
import { Proxier, type ProxierOptions, type ProxyFlowSink, SERVICE_STATIC_OWNER } from './proxier.js';
import { ProxyMetrics } from './proxy-metrics.js';
import { ServiceGroupIndex } from './service-group-index.js';
import type { ServiceHandlers, ServiceSource } from './service-source.js';
import type { StaleUdpFlow } from './stale-udp-conntrack.js';
import { service, slice } from './test-objects.js';

/** A FlowCache stand-in that records what the proxier writes. */
class RecordingFlows implements ProxyFlowSink {
  readonly batches: OwnerChange[][] = [];
  readonly replaced: string[] = [];
  prunes = 0;
  async replace(owner: string): Promise<void> {
    this.replaced.push(owner);
  }
  async replaceMany(changes: ReadonlyArray<OwnerChange>): Promise<void> {
    this.batches.push([...changes]);
  }
  async pruneGroups(): Promise<number> {
    this.prunes++;
    return 0;
  }
}

/** A source fed by hand: the initial list is given to start(). */
class ManualSource implements ServiceSource {
  handlers: ServiceHandlers | undefined;
  constructor(
    private readonly initial: { services: V1Service[]; slices: V1EndpointSlice[] },
    private readonly syncs = true,
  ) {}
  async start(h: ServiceHandlers): Promise<void> {
    this.handlers = h;
    for (const s of this.initial.services) h.upsertService(s);
    for (const s of this.initial.slices) h.upsertSlice(s);
    if (this.syncs) h.synced();
  }
  async stop(): Promise<void> {}
}

const ctx: FlowContext = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(1) };

type ModelOverrides = Pick<
  ProxierOptions,
  | 'skipServices'
  | 'serviceProxyName'
  | 'serviceGroups'
  | 'proxyAll'
  | 'proxyAllNode'
  | 'hostListeners'
  | 'nodeZone'
  | 'staleUdpConntrack'
>;

function setup(
  initial: { services: V1Service[]; slices: V1EndpointSlice[] },
  syncs = true,
  overrides: ModelOverrides = {},
) {
  const flows = new RecordingFlows();
  const source = new ManualSource(initial, syncs);
  const registry = new Registry();
  const proxier = new Proxier({
    nodeName: 'node-a',
    source,
    flows,
    ctx,
    logger: pino({ level: 'silent' }),
    metrics: new ProxyMetrics(registry),
    ...overrides,
  });
  const h = () => source.handlers as ServiceHandlers;
  return { flows, proxier, h, registry, source };
}

const owners = (batch: OwnerChange[] | undefined) =>
  (batch ?? []).map(([o, f]) => `${o}${f ? '' : ' (removed)'}`);
const groupOf = (batch: OwnerChange[] | undefined, owner: string) =>
  batch?.find(([o]) => o === owner)?.[2]?.[0];
const WEB = 'service/default/web/http/TCP';

describe('Proxier', () => {
  it('installs the static flows, then every service port in one batch after the initial lists, then prunes', async () => {
    const { flows, proxier, registry } = setup({
      services: [service('web'), service('db', { clusterIP: '10.96.0.11' })],
      slices: [slice('web-1', 'web', [{ ip: '10.10.0.7' }, { ip: '10.10.1.5' }])],
    });
    await proxier.start();
    expect(flows.replaced).toEqual([SERVICE_STATIC_OWNER]);
    expect(flows.batches).toHaveLength(1);
    expect(owners(flows.batches[0]).sort()).toEqual(['service/default/db/http/TCP', WEB]);
    expect(groupOf(flows.batches[0], WEB)?.buckets).toHaveLength(2);
    expect(flows.prunes).toBe(1);
    const text = await registry.metrics();
    expect(text).toMatch(/antrea_proxy_total_services_installed{ip_family="v4"} 2/);
    expect(text).toMatch(/antrea_proxy_total_endpoints_installed{ip_family="v4"} 2/);
    expect(text).toMatch(/antrea_proxy_sync_proxy_rules_duration_seconds_count{ip_family="v4"} 1/);
    await proxier.stop();
  });

  it('writes nothing before the initial lists are in', async () => {
    const { flows, proxier, source } = setup({ services: [service('web')], slices: [] }, false);
    const started = proxier.start();
    await new Promise((r) => setTimeout(r, 20));
    expect(flows.batches).toHaveLength(0);
    source.handlers?.synced();
    await started;
    expect(owners(flows.batches[0])).toEqual([WEB]);
  });

  it('neither writes nor prunes groups before the initial lists are in, even when both are empty', async () => {
    const { flows, proxier, source } = setup({ services: [], slices: [] }, false);
    let done = false;
    const started = proxier.start().then(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    expect(flows.prunes).toBe(0);
    source.handlers?.synced();
    await started;
    expect(flows.prunes).toBe(1);
  });

  it('stop() releases a start() still waiting for the initial lists', async () => {
    const { flows, proxier } = setup({ services: [service('web')], slices: [] }, false);
    const started = proxier.start();
    await new Promise((r) => setTimeout(r, 20));
    await proxier.stop();
    await started;
    expect(flows.batches).toHaveLength(0);
    expect(flows.prunes).toBe(0);
  });

  it('coalesces a burst into one batch holding only the changed service ports', async () => {
    const { flows, proxier, h } = setup({
      services: [service('web'), service('db', { clusterIP: '10.96.0.11' })],
      slices: [slice('web-1', 'web', [{ ip: '10.10.0.7' }])],
    });
    await proxier.start();
    // Three scale-ups of web in a row, and an unchanged re-delivery of db.
    h().upsertSlice(slice('web-1', 'web', [{ ip: '10.10.0.7' }, { ip: '10.10.0.8' }]));
    h().upsertSlice(slice('web-1', 'web', [{ ip: '10.10.0.7' }, { ip: '10.10.0.8' }, { ip: '10.10.0.9' }]));
    h().upsertService(service('db', { clusterIP: '10.96.0.11' }));
    await proxier.idle();
    expect(flows.batches).toHaveLength(2);
    expect(owners(flows.batches[1])).toEqual([WEB]);
    expect(groupOf(flows.batches[1], WEB)?.buckets).toHaveLength(3);
    // The group id stays with the service port, so the group is modified in place.
    expect(groupOf(flows.batches[1], WEB)?.groupId).toBe(groupOf(flows.batches[0], WEB)?.groupId);
    // An event that changes nothing writes nothing.
    h().upsertService(service('web'));
    await proxier.idle();
    expect(flows.batches).toHaveLength(2);
  });

  it('removes a deleted Service’s ports and follows a slice moving to another Service', async () => {
    const { flows, proxier, h } = setup({
      services: [service('web'), service('api', { clusterIP: '10.96.0.12' })],
      slices: [slice('s1', 'web', [{ ip: '10.10.0.7' }])],
    });
    await proxier.start();
    const API = 'service/default/api/http/TCP';
    h().upsertSlice(slice('s1', 'api', [{ ip: '10.10.0.7' }]));
    await proxier.idle();
    expect(owners(flows.batches[1]).sort()).toEqual([API, WEB]);
    expect(groupOf(flows.batches[1], WEB)?.buckets).toHaveLength(0);
    expect(groupOf(flows.batches[1], API)?.buckets).toHaveLength(1);
    h().removeService('default/web');
    await proxier.idle();
    expect(owners(flows.batches[2])).toEqual([`${WEB} (removed)`]);
    expect(proxier.installed()).toEqual([API]);
    h().removeSlice('default/s1');
    await proxier.idle();
    expect(groupOf(flows.batches[3], API)?.buckets).toHaveLength(0);
  });

  it('retries a failed write on the next sync', async () => {
    const { flows, proxier, h } = setup({ services: [service('web')], slices: [] });
    await proxier.start();
    let fail = true;
    const original = flows.replaceMany.bind(flows);
    flows.replaceMany = async (c) => {
      if (fail) {
        fail = false;
        throw new Error('switch gone');
      }
      return original(c);
    };
    h().upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }]));
    await proxier.idle();
    expect(owners(flows.batches[1])).toEqual([WEB]);
    expect(groupOf(flows.batches[1], WEB)?.buckets).toHaveLength(1);
  });
});

describe('Proxier: group ids per Service (NetworkPolicy toServices)', () => {
  it('publishes each Service’s ids after the write that made them, and only when they change', async () => {
    const serviceGroups = new ServiceGroupIndex();
    const told: string[][] = [];
    serviceGroups.onChange((keys) => told.push([...keys]));
    const { flows, proxier, h } = setup({ services: [service('web')], slices: [] }, true, { serviceGroups });
    await proxier.start();
    const webId = groupOf(flows.batches[0], WEB)?.groupId;
    expect(serviceGroups.groupIds('default/web')).toEqual([webId]);
    expect(told).toEqual([['default/web']]);

    // Endpoints come and go: same group, nobody is told.
    h().upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }]));
    await proxier.idle();
    expect(told).toHaveLength(1);

    // A second port; a Service created later; then a failed write publishes nothing.
    h().upsertService(
      service('web', {
        ports: [
          { name: 'http', port: 80, protocol: 'TCP' },
          { name: 'dns', port: 53, protocol: 'UDP' },
        ],
      }),
    );
    h().upsertService(service('late', { clusterIP: '10.96.0.20' }));
    await proxier.idle();
    const dnsId = groupOf(flows.batches.at(-1), 'service/default/web/dns/UDP')?.groupId;
    const lateId = groupOf(flows.batches.at(-1), 'service/default/late/http/TCP')?.groupId;
    expect(serviceGroups.groupIds('default/web')).toEqual([webId, dnsId].sort((a, b) => a! - b!));
    expect(serviceGroups.groupIds('default/late')).toEqual([lateId]);
    expect(told.at(-1)?.sort()).toEqual(['default/late', 'default/web']);

    const original = flows.replaceMany.bind(flows);
    let seenWhileFailing: readonly number[] = [];
    flows.replaceMany = async () => {
      flows.replaceMany = original;
      seenWhileFailing = serviceGroups.groupIds('default/late');
      throw new Error('switch gone');
    };
    h().removeService('default/late');
    await proxier.idle();
    // Until the deletion is written the group still exists, and so does the id.
    expect(seenWhileFailing).toEqual([lateId]);
    expect(serviceGroups.groupIds('default/late')).toEqual([]);
    expect(told.at(-1)).toEqual(['default/late']);
    await proxier.stop();
  });
});

/** What the switch holds after every batch so far: owner -> its flows and groups as text. */
function onSwitch(flows: RecordingFlows): Map<string, string> {
  const state = new Map<string, string>();
  for (const batch of flows.batches)
    for (const [owner, f, groups] of batch) {
      if (f)
        state.set(owner, [...f.map((x) => formatFlow(x)), ...(groups ?? []).map(formatGroup)].join('\n'));
      else state.delete(owner);
    }
  return state;
}

/**
 * The objects as the API holds them, mirrored into a running proxier event by event; `fromScratch`
 * is what a proxier started on these objects writes, which the incremental one must have reached.
 */
class World {
  readonly services = new Map<string, V1Service>();
  readonly slices = new Map<string, V1EndpointSlice>();
  constructor(
    private readonly h: () => ServiceHandlers,
    private readonly overrides: ModelOverrides,
  ) {}
  static async start(initial: { services: V1Service[]; slices: V1EndpointSlice[] }, o: ModelOverrides = {}) {
    const s = setup(initial, true, o);
    await s.proxier.start();
    const world = new World(s.h, o);
    for (const svc of initial.services) world.services.set(keyOf(svc), svc);
    for (const sl of initial.slices) world.slices.set(keyOf(sl), sl);
    return { ...s, world };
  }
  upsertService(svc: V1Service): void {
    this.services.set(keyOf(svc), svc);
    this.h().upsertService(svc);
  }
  removeService(key: string): void {
    this.services.delete(key);
    this.h().removeService(key);
  }
  upsertSlice(sl: V1EndpointSlice): void {
    this.slices.set(keyOf(sl), sl);
    this.h().upsertSlice(sl);
  }
  removeSlice(key: string): void {
    this.slices.delete(key);
    this.h().removeSlice(key);
  }
  async fromScratch(): Promise<Map<string, string>> {
    const fresh = setup(
      { services: [...this.services.values()], slices: [...this.slices.values()] },
      true,
      this.overrides,
    );
    await fresh.proxier.start();
    await fresh.proxier.stop();
    return onSwitch(fresh.flows);
  }
}

const keyOf = (o: V1Service | V1EndpointSlice) => serviceKey(o.metadata?.namespace, o.metadata?.name);
const API = 'service/default/api/http/TCP';
const bucketsOf = (flows: RecordingFlows, owner: string) =>
  flows.batches.flatMap((b) => b.filter(([o]) => o === owner)).at(-1)?.[2]?.[0]?.buckets.length;

describe('Proxier: each sync recomputes only the Services events touched, and misses none', () => {
  it('a slice relabelled to another Service leaves the first and joins the second', async () => {
    const { flows, proxier, world } = await World.start({
      services: [
        service('web'),
        service('api', { clusterIP: '10.96.0.12' }),
        service('db', { clusterIP: '10.96.0.13' }),
      ],
      slices: [slice('s1', 'web', [{ ip: '10.10.0.7' }]), slice('s2', 'web', [{ ip: '10.10.0.8' }])],
    });
    world.upsertSlice(slice('s1', 'api', [{ ip: '10.10.0.7' }]));
    await proxier.idle();
    // Only the two Services the slice left and joined; db was not touched.
    expect(owners(flows.batches.at(-1)).sort()).toEqual([API, WEB]);
    expect(bucketsOf(flows, WEB)).toBe(1);
    expect(bucketsOf(flows, API)).toBe(1);
    // A slice that loses its label leaves its Service too.
    const unlabelled = slice('s2', 'web', [{ ip: '10.10.0.8' }]);
    unlabelled.metadata = { ...unlabelled.metadata, labels: {} };
    world.upsertSlice(unlabelled);
    await proxier.idle();
    expect(bucketsOf(flows, WEB)).toBe(0);
    expect(onSwitch(flows)).toEqual(await world.fromScratch());
  });

  it('a Service deleted while its slices remain goes, and comes back with their endpoints', async () => {
    const { flows, proxier, world } = await World.start({
      services: [service('web'), service('api', { clusterIP: '10.96.0.12' })],
      slices: [slice('s1', 'web', [{ ip: '10.10.0.7' }])],
    });
    world.removeService('default/web');
    await proxier.idle();
    expect(owners(flows.batches.at(-1))).toEqual([`${WEB} (removed)`]);
    // Its slice changes while the Service is away: nothing to write.
    world.upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }, { ip: '10.10.0.9' }]));
    await proxier.idle();
    expect(flows.batches).toHaveLength(2);
    world.upsertService(service('web'));
    await proxier.idle();
    expect(owners(flows.batches.at(-1))).toEqual([WEB]);
    expect(bucketsOf(flows, WEB)).toBe(2);
    expect(onSwitch(flows)).toEqual(await world.fromScratch());
    expect(proxier.installed().sort()).toEqual([API, WEB]);
  });

  it('a port renamed in the Service and then in its slice moves to the new owner with its endpoints', async () => {
    const { flows, proxier, world } = await World.start({
      services: [service('web')],
      slices: [slice('s1', 'web', [{ ip: '10.10.0.7' }])],
    });
    const RENAMED = 'service/default/web/web/TCP';
    world.upsertService(service('web', { ports: [{ name: 'web', port: 80, protocol: 'TCP' }] }));
    await proxier.idle();
    expect(owners(flows.batches.at(-1)).sort()).toEqual([`${WEB} (removed)`, RENAMED]);
    // The slice still names the old port: no endpoint matches yet.
    expect(bucketsOf(flows, RENAMED)).toBe(0);
    world.upsertSlice(
      slice('s1', 'web', [{ ip: '10.10.0.7' }], [{ name: 'web', port: 8080, protocol: 'TCP' }]),
    );
    await proxier.idle();
    expect(bucketsOf(flows, RENAMED)).toBe(1);
    expect(proxier.installed()).toEqual([RENAMED]);
    expect(onSwitch(flows)).toEqual(await world.fromScratch());
  });

  it('a Service relabelled to another proxy goes, and returns when the label names this proxy', async () => {
    const { flows, proxier, world, registry } = await World.start(
      {
        services: [
          service('web', {}, { [SERVICE_PROXY_NAME_LABEL]: 'mine' }),
          service('api', { clusterIP: '10.96.0.12' }),
        ],
        slices: [slice('s1', 'web', [{ ip: '10.10.0.7' }])],
      },
      { serviceProxyName: 'mine' },
    );
    expect(proxier.installed()).toEqual([WEB]);
    world.upsertService(service('web', {}, { [SERVICE_PROXY_NAME_LABEL]: 'other' }));
    await proxier.idle();
    expect(owners(flows.batches.at(-1))).toEqual([`${WEB} (removed)`]);
    expect(await registry.metrics()).toMatch(/antrea_proxy_total_services_installed{ip_family="v4"} 0/);
    world.upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }, { ip: '10.10.0.8' }]));
    world.upsertService(service('web', {}, { [SERVICE_PROXY_NAME_LABEL]: 'mine' }));
    await proxier.idle();
    expect(bucketsOf(flows, WEB)).toBe(2);
    expect(onSwitch(flows)).toEqual(await world.fromScratch());
    const text = await registry.metrics();
    expect(text).toMatch(/antrea_proxy_total_services_installed{ip_family="v4"} 1/);
    expect(text).toMatch(/antrea_proxy_total_endpoints_installed{ip_family="v4"} 2/);
  });

  it('skipServices: a skipped Service’s events write nothing; a ClusterIP moving onto a skipped IP removes the port', async () => {
    const { flows, proxier, world } = await World.start(
      {
        services: [service('web'), service('api', { clusterIP: '10.96.0.12' })],
        slices: [slice('s1', 'web', [{ ip: '10.10.0.7' }]), slice('s2', 'api', [{ ip: '10.10.0.8' }])],
      },
      { skipServices: ['default/web', '10.96.0.99'] },
    );
    expect(proxier.installed()).toEqual([API]);
    world.upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }, { ip: '10.10.0.9' }]));
    world.upsertService(service('web', { sessionAffinity: 'ClientIP' }));
    await proxier.idle();
    expect(flows.batches).toHaveLength(1);
    world.upsertService(service('api', { clusterIP: '10.96.0.99' }));
    await proxier.idle();
    expect(owners(flows.batches.at(-1))).toEqual([`${API} (removed)`]);
    expect(proxier.installed()).toEqual([]);
    expect(onSwitch(flows)).toEqual(await world.fromScratch());
  });

  it('a failed write hands its Services back: the retry writes them even if no event follows', async () => {
    const { flows, proxier, world } = await World.start({
      services: [service('web'), service('api', { clusterIP: '10.96.0.12' })],
      slices: [],
    });
    const original = flows.replaceMany.bind(flows);
    let failures = 1;
    flows.replaceMany = async (c) => {
      if (failures-- > 0) throw new Error('switch gone');
      return original(c);
    };
    world.upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }]));
    world.removeService('default/api');
    await proxier.idle();
    expect(owners(flows.batches.at(-1)).sort()).toEqual([`${API} (removed)`, WEB]);
    expect(onSwitch(flows)).toEqual(await world.fromScratch());
  });
});

describe('Proxier: proxyAll', () => {
  const np = (policy: 'Local' | 'Cluster') =>
    service('web', {
      type: 'NodePort',
      externalTrafficPolicy: policy,
      ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }],
    });
  const eps = slice('s1', 'web', [
    { ip: '10.10.0.7', node: 'node-a' },
    { ip: '10.10.1.7', node: 'node-b' },
  ]);

  it('gives an externalTrafficPolicy Local port a second group, frees it under Cluster, and tells host listeners', async () => {
    const told: Array<Map<string, unknown>> = [];
    const { flows, proxier, source } = setup({ services: [np('Local')], slices: [eps] }, true, {
      proxyAll: true,
      proxyAllNode: {
        gatewayIp: '10.10.0.1',
        gatewayMac: '02:00:0a:0a:00:01',
        nodePortAddresses: ['198.19.0.2'],
      },
      hostListeners: [{ servicesChanged: (c) => told.push(new Map(c)) }],
    });
    await proxier.start();
    const groups = flows.batches[0]?.find(([o]) => o === WEB)?.[2] ?? [];
    expect(groups).toHaveLength(2);
    const [cluster, local] = groups;
    expect(formatGroup(local!)).toContain('0xa0a0007');
    expect(formatGroup(local!)).not.toContain('0xa0a0107');
    expect(formatGroup(cluster!)).toContain('0xa0a0107');
    expect(told.at(-1)?.get('default/web')).toMatchObject({ nodePorts: [{ protocol: 'tcp', port: 30080 }] });
    source.handlers?.upsertService(np('Cluster'));
    await proxier.idle();
    expect(flows.batches.at(-1)?.find(([o]) => o === WEB)?.[2]).toHaveLength(1);
    // A deleted Service is reported gone (undefined), so its NodePorts and routes go.
    source.handlers?.removeService('default/web');
    await proxier.idle();
    expect(told.at(-1)?.get('default/web')).toBeUndefined();
    expect(told.at(-1)?.has('default/web')).toBe(true);
    await proxier.stop();
  });
});

const bucketCount = (batch: OwnerChange[] | undefined, owner: string) =>
  groupOf(batch, owner)?.buckets.length;

describe('Proxier: zone hints', () => {
  const hinted = slice('s', 'web', [
    { ip: '10.10.0.7', zones: ['zone-a'] },
    { ip: '10.10.1.5', zones: ['zone-b'] },
  ]);

  it('writes the zone’s endpoints, and every Service again when the Node’s zone changes', async () => {
    const { flows, proxier } = setup({ services: [service('web')], slices: [hinted] }, true, {
      nodeZone: 'zone-a',
    });
    await proxier.start();
    expect(bucketCount(flows.batches[0], WEB)).toBe(1);
    proxier.setNodeZone('zone-a');
    await proxier.idle();
    expect(flows.batches).toHaveLength(1);
    proxier.setNodeZone(undefined);
    await proxier.idle();
    expect(bucketCount(flows.batches[1], WEB)).toBe(2);
    proxier.setNodeZone('zone-b');
    await proxier.idle();
    expect(bucketCount(flows.batches[2], WEB)).toBe(1);
    expect(groupOf(flows.batches[2], WEB)?.groupId).toBe(groupOf(flows.batches[0], WEB)?.groupId);
  });
});

describe('Proxier: stale UDP conntrack (CleanupStaleUDPSvcConntrack)', () => {
  const dns = service('dns', {
    clusterIP: '10.96.0.53',
    externalIPs: ['172.31.0.53'],
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
    ],
  });
  const ports = [
    { name: 'dns', port: 5353, protocol: 'UDP' },
    { name: 'dns-tcp', port: 5353, protocol: 'TCP' },
  ];
  const two = slice('s', 'dns', [{ ip: '10.10.0.7' }, { ip: '10.10.0.8' }], ports);
  const one = slice('s', 'dns', [{ ip: '10.10.0.7' }], ports);

  function withFlusher(fail = false) {
    const flushed: StaleUdpFlow[][] = [];
    const staleUdpConntrack = {
      async flush(f: readonly StaleUdpFlow[]) {
        flushed.push([...f]);
        if (fail) throw new Error('ovs-appctl failed');
      },
    };
    return { flushed, ...setup({ services: [dns], slices: [two] }, true, { staleUdpConntrack }) };
  }

  it('an endpoint that leaves: its connections to every address of the UDP port, after the group changed', async () => {
    const { flushed, flows, proxier, h } = withFlusher();
    await proxier.start();
    expect(flushed).toEqual([]);
    h().upsertSlice(one);
    await proxier.idle();
    expect(flows.batches).toHaveLength(2);
    const gone = { ip: '10.10.0.8', port: 5353 };
    expect(flushed).toEqual([
      [
        { vip: '10.96.0.53', port: 53, endpoint: gone },
        { vip: '172.31.0.53', port: 53, endpoint: gone },
      ],
    ]);
    // An endpoint that comes makes nothing stale.
    h().upsertSlice(two);
    await proxier.idle();
    expect(flushed).toHaveLength(1);
  });

  it('an address or port that goes, or the Service: every connection to it', async () => {
    const { flushed, proxier, h } = withFlusher();
    await proxier.start();
    h().upsertService({ ...dns, spec: { ...dns.spec, externalIPs: [] } });
    await proxier.idle();
    expect(flushed.at(-1)).toEqual([{ vip: '172.31.0.53', port: 53 }]);
    h().removeService('default/dns');
    await proxier.idle();
    expect(flushed.at(-1)).toEqual([{ vip: '10.96.0.53', port: 53 }]);
  });

  it('with proxyAll, NodePort connections (on the virtual NodePort IP) of a lost endpoint go too', async () => {
    const flushed: StaleUdpFlow[][] = [];
    const np = service('dns', {
      type: 'NodePort',
      clusterIP: '10.96.0.53',
      ports: [{ name: 'dns', port: 53, nodePort: 30053, protocol: 'UDP' }],
    });
    const udpPorts = [{ name: 'dns', port: 5353, protocol: 'UDP' }];
    const { proxier, h } = setup(
      { services: [np], slices: [slice('s', 'dns', [{ ip: '10.10.0.7' }, { ip: '10.10.0.8' }], udpPorts)] },
      true,
      {
        proxyAll: true,
        staleUdpConntrack: { flush: async (f) => void flushed.push([...f]) },
      },
    );
    await proxier.start();
    h().upsertSlice(slice('s', 'dns', [{ ip: '10.10.0.7' }], udpPorts));
    await proxier.idle();
    const gone = { ip: '10.10.0.8', port: 5353 };
    expect(flushed).toEqual([
      [
        { vip: '10.96.0.53', port: 53, endpoint: gone },
        { vip: '169.254.0.252', port: 30053, endpoint: gone },
      ],
    ]);
  });

  it('a failed flush is logged and the sync goes on', async () => {
    const { flushed, proxier, h } = withFlusher(true);
    await proxier.start();
    h().upsertSlice(one);
    await proxier.idle();
    h().upsertSlice(slice('s', 'dns', [], ports));
    await proxier.idle();
    expect(flushed.map((f) => f.length)).toEqual([2, 2]);
    expect(proxier.installed().sort()).toEqual([
      'service/default/dns/dns-tcp/TCP',
      'service/default/dns/dns/UDP',
    ]);
  });
});
