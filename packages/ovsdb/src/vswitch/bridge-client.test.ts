import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { OvsdbClient } from '../client.js';
import { encodeOperation, type Operation, type OperationResult } from '../codec/operations.js';
import { ovsMap, ovsSet, uuid } from '../codec/value.js';
import { OvsdbError, OvsdbTxnError } from '../errors.js';
import { OvsBridgeClient } from './bridge-client.js';

const logger = pino({ level: 'silent' });
const U = (n: number) => uuid(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`);

/** Records transactions and answers each with the next scripted reply (a result list or an error). */
function recordingClient(replies: (OperationResult[] | Error)[]) {
  const txns: unknown[][] = [];
  const client: OvsdbClient = {
    listDbs: async () => ['Open_vSwitch'],
    getSchema: async () => ({ name: 'Open_vSwitch', version: '', tables: {} }),
    monitor: async () => ({ id: 'm', cancel: async () => {} }),
    monitorCond: async () => ({ id: 'm', cancel: async () => {}, changeConditions: async () => {} }),
    transact: async (_db: string, ops: readonly Operation[]) => {
      txns.push(ops.map(encodeOperation));
      const reply = replies.shift();
      if (reply === undefined) throw new Error('unexpected transaction');
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  return { client, txns };
}

async function rejection(p: Promise<unknown>): Promise<OvsdbError> {
  try {
    await p;
  } catch (err) {
    if (OvsdbError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('OvsBridgeClient', () => {
  it('adds a port and its interface in one transaction guarded by a wait on the bridge', async () => {
    const { client, txns } = recordingClient([[{}, { uuid: U(1) }, { uuid: U(2) }, { count: 1 }, {}]]);
    const bridges = new OvsBridgeClient(client, { logger });
    const added = await bridges.addPort('br-int', {
      name: 'antrea-tun0',
      type: 'geneve',
      options: { remote_ip: 'flow', key: 'flow' },
      externalIds: { 'antrea-type': 'tunnel' },
      ofportRequest: 1,
      mtuRequest: null,
    });
    expect(added).toEqual({ interfaceUuid: U(1).uuid, portUuid: U(2).uuid });
    expect(txns[0]).toEqual([
      {
        op: 'wait',
        table: 'Bridge',
        where: [['name', '==', 'br-int']],
        columns: ['name'],
        until: '==',
        rows: [{ name: 'br-int' }],
        timeout: 0,
      },
      {
        op: 'insert',
        table: 'Interface',
        'uuid-name': 'iface',
        row: {
          name: 'antrea-tun0',
          type: 'geneve',
          options: [
            'map',
            [
              ['remote_ip', 'flow'],
              ['key', 'flow'],
            ],
          ],
          external_ids: ['map', [['antrea-type', 'tunnel']]],
          ofport_request: 1,
          mtu_request: ['set', []],
        },
      },
      {
        op: 'insert',
        table: 'Port',
        'uuid-name': 'port',
        row: {
          name: 'antrea-tun0',
          interfaces: ['set', [['named-uuid', 'iface']]],
          external_ids: ['map', [['antrea-type', 'tunnel']]],
        },
      },
      {
        op: 'mutate',
        table: 'Bridge',
        where: [['name', '==', 'br-int']],
        mutations: [['ports', 'insert', ['set', [['named-uuid', 'port']]]]],
      },
      { op: 'comment', comment: 'antrea-ts: add port antrea-tun0 to br-int' },
    ]);
  });

  it('maps a failed bridge wait to OVSDB_NOT_FOUND and passes other failures through', async () => {
    const { client } = recordingClient([
      new OvsdbTxnError(0, 'wait', 'timed out'),
      new OvsdbTxnError(1, 'insert', 'constraint violation'),
    ]);
    const bridges = new OvsBridgeClient(client, { logger });
    expect((await rejection(bridges.addPort('nope', { name: 'p' }))).code).toBe('OVSDB_NOT_FOUND');
    expect((await rejection(bridges.addPort('br', { name: 'p' }))).code).toBe('OVSDB_TXN_FAILED');
  });

  it('treats type system as the empty type and keeps veth ports plain', async () => {
    const { client, txns } = recordingClient([[{}, { uuid: U(1) }, { uuid: U(2) }, { count: 1 }, {}]]);
    await new OvsBridgeClient(client, { logger }).addPort('br', { name: 'veth0', type: 'system' });
    expect((txns[0]![1] as { row: unknown }).row).toEqual({ name: 'veth0', type: '' });
  });

  it('creates a bridge with its local port only when it does not exist', async () => {
    const { client, txns } = recordingClient([
      [{ rows: [] }],
      [{}, { uuid: U(1) }, { uuid: U(2) }, { uuid: U(3) }, { count: 1 }, {}],
    ]);
    const result = await new OvsBridgeClient(client, { logger }).ensureBridge('br-int', {
      datapathType: 'netdev',
      protocols: ['OpenFlow15'],
      failMode: 'secure',
    });
    expect(result).toEqual({ uuid: U(3).uuid, created: true });
    const ops = txns[1] as { op: string; table?: string; row?: Record<string, unknown> }[];
    expect(ops.map((o) => `${o.op}:${o.table ?? ''}`)).toEqual([
      'wait:Bridge',
      'insert:Interface',
      'insert:Port',
      'insert:Bridge',
      'mutate:Open_vSwitch',
      'comment:',
    ]);
    expect(ops[1]!.row).toEqual({ name: 'br-int', type: 'internal' });
    expect(ops[3]!.row).toMatchObject({
      name: 'br-int',
      datapath_type: 'netdev',
      protocols: ['set', ['OpenFlow15']],
      fail_mode: 'secure',
    });
  });

  it('updates an existing bridge in place', async () => {
    const existing = {
      _uuid: U(9),
      name: 'br-int',
      datapath_type: 'system',
      protocols: ovsSet(),
      fail_mode: ovsSet(),
      other_config: ovsMap({}),
      external_ids: ovsMap({}),
      ports: ovsSet(),
    };
    const { client, txns } = recordingClient([[{ rows: [existing] }], [{ count: 1 }]]);
    const result = await new OvsBridgeClient(client, { logger }).ensureBridge('br-int', {
      datapathType: 'netdev',
    });
    expect(result).toEqual({ uuid: U(9).uuid, created: false });
    expect(txns[1]).toEqual([
      { op: 'update', table: 'Bridge', where: [['name', '==', 'br-int']], row: { datapath_type: 'netdev' } },
    ]);
  });

  it('waits for the ofport server-side and reports ovs-vswitchd failures', async () => {
    const { client, txns } = recordingClient([
      [{}, { rows: [{ _uuid: U(1), ofport: 7, error: ovsSet() }] }],
      [{}, { rows: [{ _uuid: U(1), ofport: -1, error: 'could not open network device' }] }],
      new OvsdbTxnError(0, 'wait', 'timed out'),
      [{}, { rows: [] }],
    ]);
    const bridges = new OvsBridgeClient(client, { logger });
    expect(await bridges.waitForOfport('p0', 1234)).toBe(7);
    expect(txns[0]![0]).toEqual({
      op: 'wait',
      table: 'Interface',
      where: [['name', '==', 'p0']],
      columns: ['ofport'],
      until: '!=',
      rows: [{ ofport: ['set', []] }],
      timeout: 1234,
    });
    const failed = await rejection(bridges.waitForOfport('p0'));
    expect(failed.code).toBe('OVSDB_INTERFACE_ERROR');
    expect(failed.message).toMatch(/could not open network device/);
    expect((await rejection(bridges.waitForOfport('p0'))).code).toBe('OVSDB_TIMEOUT');
    expect((await rejection(bridges.waitForOfport('p0'))).code).toBe('OVSDB_NOT_FOUND');
  });
});
