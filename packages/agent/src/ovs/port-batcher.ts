import {
  type BridgeClient,
  namedUuid,
  type Operation,
  OVS_DB,
  type OvsdbClient,
  ovsMap,
  ovsSet,
  Uuid,
} from '@antrea-ts/ovsdb';
import type { Logger } from 'pino';
import { commitAllOrEach, GroupCommit, type ItemOutcome } from '../util/group-commit.js';

export interface SimplePortSpec {
  readonly name: string;
  readonly externalIds: Readonly<Record<string, string>>;
}

/**
 * Adds and removes Pod ports with group commit: ports requested while a transaction is in flight go
 * together in the next one. ovs-vswitchd reconfigures the bridge once per committed transaction,
 * and with userspace OVS that reconfiguration is what a burst of Pod ADDs (or DELs) waits on. A
 * failed merged transaction is retried port by port, so one bad port fails only its own request.
 */
export class PortBatcher {
  private readonly log: Logger;
  private readonly adds: GroupCommit<SimplePortSpec>;
  private readonly deletes: GroupCommit<string>;

  constructor(
    private readonly client: OvsdbClient,
    private readonly bridges: BridgeClient,
    private readonly bridge: string,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'port-batcher' });
    this.adds = new GroupCommit((specs) =>
      this.commit(
        specs,
        () => portOps(this.bridge, specs),
        (spec) => this.bridges.addPort(this.bridge, spec),
      ),
    );
    this.deletes = new GroupCommit((names) =>
      this.commit(
        names,
        () => this.deleteOps(names),
        (name) => this.bridges.deletePort(this.bridge, name),
      ),
    );
  }

  add(spec: SimplePortSpec): Promise<void> {
    return this.adds.submit(spec);
  }

  /** Removes the port if it exists (idempotent, like BridgeClient.deletePort). */
  delete(name: string): Promise<void> {
    return this.deletes.submit(name);
  }

  /** One item goes through the bridge client; several in one transaction, one by one if that fails. */
  private commit<T>(
    items: readonly T[],
    ops: () => Promise<Operation[]> | Operation[],
    one: (item: T) => Promise<unknown>,
  ): Promise<ItemOutcome[]> {
    return commitAllOrEach(
      items,
      async () => {
        await this.client.transact(OVS_DB, await ops());
        this.log.debug({ ports: items.length }, 'changed ports in one transaction');
      },
      one,
    );
  }

  /** The Port rows named `names` that exist, removed from the bridge in one mutate. */
  private async deleteOps(names: readonly string[]): Promise<Operation[]> {
    const found = await this.client.transact(
      OVS_DB,
      names.map((name) => ({
        op: 'select',
        table: 'Port',
        where: [['name', '==', name]],
        columns: ['_uuid'],
      })),
    );
    const uuids = found
      .flatMap((r) => (r?.rows ?? []).map((row) => row['_uuid']))
      .filter((u) => u instanceof Uuid);
    return [
      {
        op: 'mutate',
        table: 'Bridge',
        where: [['name', '==', this.bridge]],
        mutations: [['ports', 'delete', ovsSet(...uuids)]],
      },
      { op: 'comment', comment: `antrea-ts: delete ${uuids.length} ports from ${this.bridge}` },
    ];
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
