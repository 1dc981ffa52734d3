import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { NsxRequestError, NsxUnreachableError } from '../errors.js';
import type { InventorySource } from '../k8s/kube-inventory-source.js';
import type { KubeObject } from '../k8s/types.js';
import type { InventoryUpdate, MpChannel } from '../nsx/channels.js';
import { INVENTORY_KINDS, type InventoryKind } from './inventory.js';
import { InventoryReporter } from './inventory-reporter.js';

/** NSX's inventory for one cluster, applying batches like the simulator does. */
class FakeInventoryChannel implements Pick<MpChannel, 'listInventory' | 'sendInventory'> {
  readonly objects = new Map<string, Record<string, unknown>>();
  readonly batches: InventoryUpdate[][] = [];
  reachable = true;
  lists = 0;
  /** external ids NSX refuses (400, whole batch rejected like the simulator does). */
  refuse = new Set<string>();
  async listInventory(type: string): Promise<Record<string, unknown>[]> {
    if (!this.reachable) throw new NsxUnreachableError('down');
    this.lists += 1;
    return [...this.objects.values()].filter((o) => o['resource_type'] === type);
  }
  async sendInventory(_cluster: string, updates: InventoryUpdate[]): Promise<void> {
    if (!this.reachable) throw new NsxUnreachableError('down');
    if (updates.some((u) => this.refuse.has(u.container_object.external_id))) {
      throw new NsxRequestError('POST', '/api/v1/inventory/container/c-uuid', 400, { error_code: 500090 });
    }
    this.batches.push(updates);
    for (const u of updates) {
      const k = `${u.container_object.resource_type}/${u.container_object.external_id}`;
      if (u.object_update_type === 'DELETE') this.objects.delete(k);
      else this.objects.set(k, { ...(this.objects.get(k) ?? {}), ...u.container_object, _last_sync_time: 1 });
    }
  }
  ids(type: string): string[] {
    return [...this.objects.values()]
      .filter((o) => o['resource_type'] === type)
      .map((o) => String(o['external_id']))
      .sort();
  }
}

class FakeSource implements InventorySource {
  readonly objects = new Map<InventoryKind, KubeObject[]>(INVENTORY_KINDS.map((k) => [k, []]));
  private onChange: ((k: InventoryKind) => void) | undefined;
  async start(onChange: (k: InventoryKind) => void): Promise<void> {
    this.onChange = onChange;
  }
  list(kind: InventoryKind): KubeObject[] {
    return this.objects.get(kind) ?? [];
  }
  async stop(): Promise<void> {}
  set(kind: InventoryKind, objs: KubeObject[]): void {
    this.objects.set(kind, objs);
    this.onChange?.(kind);
  }
}

const pod = (n: number): KubeObject => ({
  metadata: { name: `p${n}`, namespace: 'default', uid: `pod-${n}`, labels: { app: 'x' } },
  spec: {},
  status: { phase: 'Pending' },
});

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 3000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

let reporters: InventoryReporter[] = [];
afterEach(async () => {
  await Promise.all(reporters.map((r) => r.stop()));
  reporters = [];
});

function reporter(channel: FakeInventoryChannel, source: FakeSource, batchSize = 4): InventoryReporter {
  const r = new InventoryReporter({
    channel: channel as unknown as MpChannel,
    source,
    logger: pino({ level: 'silent' }),
    clusterName: 'kind-a',
    clusterUuid: 'c-uuid',
    batchSize,
    batchPeriodMs: 20,
    backoffInitialMs: 10,
    backoffMaxMs: 20,
  });
  reporters.push(r);
  return r;
}

describe('InventoryReporter', () => {
  it('full sync at start removes what NSX has but the cluster does not, in batches', async () => {
    const channel = new FakeInventoryChannel();
    channel.objects.set('ContainerApplicationInstance/stale', {
      resource_type: 'ContainerApplicationInstance',
      external_id: 'stale',
    });
    const source = new FakeSource();
    source.objects.set('Namespace', [{ metadata: { name: 'default', uid: 'ns-default' } }]);
    source.objects.set('Pod', [1, 2, 3, 4, 5].map(pod));
    const r = reporter(channel, source);
    await r.start();
    await until(
      () =>
        channel.ids('ContainerApplicationInstance').length === 5 &&
        !channel.objects.has('ContainerApplicationInstance/stale'),
      'full sync',
    );
    expect(channel.ids('ContainerCluster')).toEqual(['c-uuid']);
    expect(channel.batches.every((b) => b.length <= 4)).toBe(true);
    expect(channel.batches[0]?.[0]?.container_object.resource_type).toBe('ContainerCluster');
    expect(r.health.status).toBe('TRUE');
  });

  it('sends only changes, debounced; after NSX comes back it resyncs from NSX state', async () => {
    const channel = new FakeInventoryChannel();
    const source = new FakeSource();
    source.objects.set('Pod', [pod(1), pod(2)]);
    const r = reporter(channel, source, 50);
    await r.start();
    await until(() => channel.ids('ContainerApplicationInstance').length === 2, 'initial');
    const n = channel.batches.length;
    source.set('Pod', [pod(1), pod(2), pod(3)]);
    source.set('Pod', [pod(1), pod(3)]);
    await until(() => channel.ids('ContainerApplicationInstance').join() === 'pod-1,pod-3', 'incremental');
    // Both events went out in one batch holding just the difference.
    expect(channel.batches.slice(n)).toEqual([
      [
        expect.objectContaining({
          object_update_type: 'CREATE',
          container_object: expect.objectContaining({ external_id: 'pod-3' }),
        }),
        {
          object_update_type: 'DELETE',
          container_object: { resource_type: 'ContainerApplicationInstance', external_id: 'pod-2' },
        },
      ],
    ]);

    channel.reachable = false;
    source.set('Pod', [pod(3)]);
    await until(() => r.health.status === 'FALSE', 'degraded');
    // Meanwhile someone else changed NSX; on reconnect NSX is read back before diffing.
    channel.objects.delete('ContainerApplicationInstance/pod-3');
    const lists = channel.lists;
    channel.reachable = true;
    await until(() => channel.ids('ContainerApplicationInstance').join() === 'pod-3', 'resync');
    expect(channel.lists).toBeGreaterThan(lists);
    expect(r.health.status).toBe('TRUE');
  });

  it('an object NSX refuses does not block the rest of its batch, and is not resent until it changes', async () => {
    const channel = new FakeInventoryChannel();
    channel.refuse.add('pod-2');
    const source = new FakeSource();
    source.objects.set('Pod', [pod(1), pod(2), pod(3)]);
    const r = reporter(channel, source, 50);
    await r.start();
    await until(
      () => channel.ids('ContainerApplicationInstance').join() === 'pod-1,pod-3',
      'others reported',
    );
    expect(r.rejected).toBe(1);
    expect(r.health.status).toBe('TRUE');
    const n = channel.batches.length;
    source.set('Pod', [pod(1), pod(2), pod(3), pod(4)]);
    await until(() => channel.ids('ContainerApplicationInstance').includes('pod-4'), 'next change');
    expect(
      channel.batches
        .slice(n)
        .flat()
        .map((u) => u.container_object.external_id),
    ).toEqual(['pod-4']);
  });
});
