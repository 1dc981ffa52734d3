import {
  type BridgeClient,
  namedUuid,
  type Operation,
  OVS_DB,
  type OvsdbClient,
  ovsMap,
  ovsSet,
} from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';

export interface SimplePortSpec {
  readonly name: string;
  readonly externalIds: Readonly<Record<string, string>>;
}

/**
 * Adds Pod ports to a bridge with group commit: ports requested while a transaction is in flight
 * go together in the next one. ovs-vswitchd reconfigures the bridge once per committed transaction,
 * and with userspace OVS that reconfiguration is what a burst of Pod ADDs waits on. A failed merged
 * transaction is retried port by port, so one bad port fails only its own ADD.
 */
export class PortBatcher {
  private readonly log: Logger;
  private queue: Array<{ spec: SimplePortSpec; resolve: () => void; reject: (err: unknown) => void }> = [];
  private flushing = false;

  constructor(
    private readonly client: OvsdbClient,
    private readonly bridges: BridgeClient,
    private readonly bridge: string,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'port-batcher' });
  }

  add(spec: SimplePortSpec): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ spec, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        if (batch.length === 1) {
          const [only] = batch;
          await this.bridges.addPort(this.bridge, only!.spec).then(() => only!.resolve(), only!.reject);
          continue;
        }
        try {
          await this.client.transact(
            OVS_DB,
            portOps(
              this.bridge,
              batch.map((b) => b.spec),
            ),
          );
          for (const b of batch) b.resolve();
          this.log.debug({ ports: batch.length }, 'added ports in one transaction');
        } catch {
          for (const b of batch)
            await this.bridges.addPort(this.bridge, b.spec).then(() => b.resolve(), b.reject);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/** One transaction adding every port (with one interface each) to the bridge. */
export function portOps(bridge: string, specs: readonly SimplePortSpec[]): Operation[] {
  const ops: Operation[] = [
    // The bridge must exist, or the new rows would be garbage-collected and we would report success.
    {
      op: 'wait',
      table: 'Bridge',
      where: [['name', '==', bridge]],
      columns: ['name'],
      until: '==',
      rows: [{ name: bridge }],
      timeout: 0,
    },
  ];
  specs.forEach((s, i) => {
    ops.push(
      {
        op: 'insert',
        table: 'Interface',
        uuidName: `iface${i}`,
        row: { name: s.name, external_ids: ovsMap(s.externalIds) },
      },
      {
        op: 'insert',
        table: 'Port',
        uuidName: `port${i}`,
        row: {
          name: s.name,
          interfaces: ovsSet(namedUuid(`iface${i}`)),
          external_ids: ovsMap(s.externalIds),
        },
      },
    );
  });
  ops.push(
    {
      op: 'mutate',
      table: 'Bridge',
      where: [['name', '==', bridge]],
      mutations: [['ports', 'insert', ovsSet(...specs.map((_, i) => namedUuid(`port${i}`)))]],
    },
    { op: 'comment', comment: `antrea-ts: add ${specs.length} ports to ${bridge}` },
  );
  return ops;
}
