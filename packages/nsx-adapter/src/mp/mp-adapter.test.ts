import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { NsxRequestError, NsxUnreachableError } from '../errors.js';
import type { CrdClient } from '../k8s/kube-crd-client.js';
import type { InventorySource } from '../k8s/kube-inventory-source.js';
import type { KubeObject } from '../k8s/types.js';
import type {
  InventoryUpdate,
  MpChannel,
  RuleStatisticsReport,
  SupportBundleRequest,
  TraceflowRequest,
} from '../nsx/channels.js';
import { MpAdapter } from './mp-adapter.js';

/** MpChannel in memory; `down` makes every call fail like a stopped manager. */
class FakeMpChannel implements MpChannel {
  down = false;
  /** This many heartbeats fail (as if NSX went away just for them) before they pass again. */
  failHeartbeats = 0;
  registered: string | undefined;
  statuses: Record<string, unknown>[] = [];
  inventory: InventoryUpdate[] = [];
  stats: RuleStatisticsReport[][] = [];
  traceflows: TraceflowRequest[] = [];
  traceflowResults = new Map<string, Record<string, unknown>>();
  bundles: SupportBundleRequest[] = [];
  uploads = new Map<string, Buffer>();
  private check(): void {
    if (this.down) throw new NsxUnreachableError('connect ECONNREFUSED');
  }
  async getClusterControlPlane() {
    this.check();
    if (!this.registered) throw new NsxRequestError('GET', '/ccp', 404, { error_code: 600 });
    return { id: 'kind-a', node_id: 'uuid-1' };
  }
  async registerCluster(pem: string) {
    this.check();
    this.registered = pem;
    return { id: 'kind-a', node_id: 'uuid-1' };
  }
  async listInventory() {
    this.check();
    return [];
  }
  async sendInventory(_c: string, updates: InventoryUpdate[]) {
    this.check();
    this.inventory.push(...updates);
  }
  async reportStatus(info: Record<string, unknown>) {
    this.check();
    if (this.failHeartbeats > 0) {
      this.failHeartbeats -= 1;
      throw new NsxUnreachableError('connect ECONNREFUSED');
    }
    this.statuses.push(info);
  }
  async getHeartbeatIntervalSeconds() {
    this.check();
    return 60;
  }
  async reportStatistics(s: RuleStatisticsReport[]) {
    this.check();
    this.stats.push(s);
  }
  async listTraceflows() {
    this.check();
    return this.traceflows.filter((t) => t.phase === 'PENDING');
  }
  async startTraceflow(id: string) {
    const t = this.traceflows.find((x) => x.config.id === id);
    if (t) t.phase = 'RUNNING';
  }
  async reportTraceflow(id: string, result: Record<string, unknown>) {
    this.traceflowResults.set(id, result);
  }
  async listSupportBundleRequests() {
    this.check();
    return this.bundles.filter((b) => b.status === 'PENDING');
  }
  async startSupportBundle(id: string) {
    const b = this.bundles.find((x) => x.request_id === id);
    if (b) b.status = 'RUNNING';
  }
  async uploadSupportBundle(id: string, archive: Buffer) {
    this.uploads.set(id, archive);
  }
  async failSupportBundle() {}
}

const emptySource: InventorySource = { start: async () => {}, list: () => [], stop: async () => {} };
const noCrds: CrdClient = {
  create: async (_k, o) => o,
  get: async () => undefined,
  list: async () => [] as KubeObject[],
  delete: async () => {},
};

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 3000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

let adapters: MpAdapter[] = [];
afterEach(async () => {
  await Promise.all(adapters.map((a) => a.stop()));
  adapters = [];
});
function adapter(
  channel: FakeMpChannel,
  extra: Partial<ConstructorParameters<typeof MpAdapter>[0]> = {},
): MpAdapter {
  const a = new MpAdapter({
    channel,
    inventory: emptySource,
    crds: noCrds,
    logger: pino({ level: 'silent' }),
    clusterName: 'kind-a',
    heartbeatIntervalMs: 20,
    troubleshootPollMs: 10,
    inventoryBatchPeriodMs: 10,
    backoffInitialMs: 10,
    backoffMaxMs: 20,
    ...extra,
  });
  adapters.push(a);
  return a;
}

describe('MpAdapter', () => {
  it('registers the cluster when NSX does not know it, then reports inventory and heartbeats', async () => {
    const channel = new FakeMpChannel();
    const a = adapter(channel, {
      registerCertificate: 'PEM',
      ccpHealth: () => ({ status: 'UP', conditions: [] }),
    });
    await a.start();
    await until(() => channel.statuses.length >= 2, 'heartbeats');
    expect(channel.registered).toBe('PEM');
    expect(a.clusterUuid).toBe('uuid-1');
    expect(channel.inventory[0]).toMatchObject({
      object_update_type: 'CREATE',
      container_object: { resource_type: 'ContainerCluster', external_id: 'uuid-1' },
    });
    expect(channel.statuses[1]).toMatchObject({
      controller_status: { status: 'DOWN' },
      ccp_adapter_status: { status: 'UP' },
      agent_info: { healthy_agent_num: 0, degraded_agent_num: 0, failed_agent_num: 0 },
    });
    await until(() => a.health().status === 'UP', 'UP');
  });

  it('without a certificate an unknown cluster keeps it waiting (and DEGRADED) instead of registering', async () => {
    const channel = new FakeMpChannel();
    const a = adapter(channel);
    await a.start();
    await until(() => a.health().status === 'DEGRADED', 'DEGRADED');
    expect(channel.registered).toBeUndefined();
    expect(a.health().conditions[0]).toMatchObject({
      type: 'NSXConnectionUp',
      status: 'FALSE',
      reason: 'NSX_NOT_FOUND',
    });
  });

  it('NSX unreachable: health DEGRADED; heartbeats resume when it is back', async () => {
    const channel = new FakeMpChannel();
    channel.registered = 'x';
    const a = adapter(channel);
    await a.start();
    await until(() => channel.statuses.length > 0, 'first heartbeat');
    channel.down = true;
    await until(() => a.health().status === 'DEGRADED', 'DEGRADED');
    const n = channel.statuses.length;
    channel.down = false;
    await until(() => channel.statuses.length > n && a.health().status === 'UP', 'recovered');
  });

  it('retries a failed heartbeat with backoff, not a whole heartbeat interval later', async () => {
    const channel = new FakeMpChannel();
    channel.registered = 'x';
    channel.failHeartbeats = 3;
    const a = adapter(channel, { heartbeatIntervalMs: 60_000, backoffInitialMs: 10, backoffMaxMs: 60_000 });
    await a.start();
    await until(() => channel.statuses.length === 1, 'heartbeat after three failures');
    expect(channel.failHeartbeats).toBe(0);
    await until(() => a.health().status === 'UP', 'UP');
  });

  it('notices NSX going away and coming back between heartbeats (troubleshooting poll), then heartbeats at once', async () => {
    const channel = new FakeMpChannel();
    channel.registered = 'x';
    const a = adapter(channel, { heartbeatIntervalMs: 60_000 });
    await a.start();
    await until(() => a.health().status === 'UP', 'UP');
    channel.down = true;
    await until(() => a.health().status === 'DEGRADED', 'DEGRADED without a heartbeat');
    expect(a.health().conditions[0]).toMatchObject({ type: 'NSXConnectionUp', reason: 'NSX_UNREACHABLE' });
    channel.down = false;
    await until(() => a.health().status === 'UP', 'UP again');
    // NSX hears about it at once, not a heartbeat interval later.
    await until(() => channel.statuses.length === 2, 'heartbeat on reconnection');
  });

  it('a traceflow whose source is not a Pod of the cluster is reported FAILED; bundles are uploaded', async () => {
    const channel = new FakeMpChannel();
    channel.registered = 'x';
    channel.traceflows.push({
      config: { id: 'tf', source_external_id: 'ghost', packet: {} },
      phase: 'PENDING',
    });
    channel.bundles.push({ request_id: 'b1', status: 'PENDING' });
    const a = adapter(channel);
    await a.start();
    await until(() => channel.traceflowResults.has('tf') && channel.uploads.has('b1'), 'troubleshooting');
    expect(channel.traceflowResults.get('tf')).toMatchObject({
      phase: 'FAILED',
      reason: expect.stringMatching(/not a Pod/),
    });
    expect(channel.uploads.get('b1')?.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });
});
