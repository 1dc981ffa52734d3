import { type OperationResult, type OvsdbClient, type OvsdbSet, Uuid } from '@antrea-ts/ovsdb';
import { FakeBridgeClient } from '@antrea-ts/ovsdb/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PortBatcher, portOps } from './port-batcher.js';

describe('PortBatcher', () => {
  it('builds one transaction for several ports: wait for the bridge, inserts, one mutate', () => {
    const ops = portOps('br-int', [
      { name: 'a', externalIds: { k: '1' } },
      { name: 'b', externalIds: { k: '2' } },
    ]);
    expect(ops.map((o) => `${o.op}:${'table' in o ? o.table : ''}`)).toEqual([
      'wait:Bridge',
      'insert:Interface',
      'insert:Port',
      'insert:Interface',
      'insert:Port',
      'mutate:Bridge',
      'comment:',
    ]);
  });

  it('merges ports requested while a transaction is in flight; falls back to one by one on failure', async () => {
    const txns: number[] = [];
    let fail = false;
    const client = {
      transact: async (_db: string, ops: readonly unknown[]): Promise<OperationResult[]> => {
        txns.push(ops.length);
        if (fail) throw new Error('constraint violation');
        return [];
      },
    } as unknown as OvsdbClient;
    const bridges = new FakeBridgeClient();
    await bridges.ensureBridge('br-int');
    const batcher = new PortBatcher(client, bridges, 'br-int', pino({ level: 'silent' }));
    // The first goes alone (through the bridge client); the next three queue behind it and merge.
    await Promise.all(['p0', 'p1', 'p2', 'p3'].map((name) => batcher.add({ name, externalIds: {} })));
    expect(txns).toEqual([3 + 2 * 3]);
    fail = true;
    await Promise.all(['q0', 'q1', 'q2'].map((name) => batcher.add({ name, externalIds: {} })));
    // The merged transaction of q1+q2 failed and each was added alone through the bridge client.
    expect((await bridges.listPorts('br-int')).map((p) => p.name)).toEqual(
      expect.arrayContaining(['p0', 'q0', 'q1', 'q2']),
    );
  });

  it('removes ports requested together with one select and one mutate of the bridge', async () => {
    const txns: Array<Array<{ op: string; table?: string; mutations?: unknown }>> = [];
    const client = {
      transact: async (
        _db: string,
        ops: Array<{ op: string; table?: string }>,
      ): Promise<OperationResult[]> => {
        txns.push(ops);
        // Every selected port exists, with a distinct UUID.
        return ops.map((o, i) =>
          o.op === 'select' ? { rows: [{ _uuid: new Uuid(`00000000-0000-4000-8000-00000000000${i}`) }] } : {},
        );
      },
    } as unknown as OvsdbClient;
    const bridges = new FakeBridgeClient();
    await bridges.ensureBridge('br-int');
    await bridges.addPort('br-int', { name: 'p0', externalIds: {} });
    const batcher = new PortBatcher(client, bridges, 'br-int', pino({ level: 'silent' }));
    // p0 goes alone through the bridge client; p1..p3 queue behind it and go in one transaction pair.
    await Promise.all(['p0', 'p1', 'p2', 'p3'].map((name) => batcher.delete(name)));
    expect(await bridges.getInterface('p0')).toBeUndefined();
    expect(txns.map((t) => t.map((o) => `${o.op}:${o.table ?? ''}`))).toEqual([
      ['select:Port', 'select:Port', 'select:Port'],
      ['mutate:Bridge', 'comment:'],
    ]);
    const [[, , uuids]] = txns[1]![0]!.mutations as [[string, string, OvsdbSet]];
    expect(uuids.items).toHaveLength(3);
  });
});
