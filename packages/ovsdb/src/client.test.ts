import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type LockEvent, OvsdbRpcClient, type UpdateInfo } from './client.js';
import type { TableUpdates, TableUpdates2 } from './codec/monitor.js';
import { OvsdbError } from './errors.js';
import { type ScriptedReply, type ScriptedRequest, ScriptedServer } from './testing/scripted-server.js';

const logger = pino({ level: 'silent' });
const U1 = '5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11';

async function rejection(p: Promise<unknown>): Promise<OvsdbError> {
  try {
    await p;
  } catch (err) {
    if (OvsdbError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('OvsdbRpcClient', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(handler: (req: ScriptedRequest) => ScriptedReply) {
    const server = new ScriptedServer(handler);
    await server.listen();
    cleanups.push(() => server.close());
    const client = new OvsdbRpcClient({
      endpoint: server.path,
      logger,
      backoff: { initialMs: 5, maxMs: 20, jitter: 0 },
      requestTimeoutMs: 2_000,
    });
    cleanups.push(() => client.stop());
    await client.start();
    return { server, client };
  }

  it('sends transact with encoded operations and decodes results', async () => {
    const { server, client } = await setup(() => ({ result: [{ uuid: ['uuid', U1] }, { count: 1 }] }));
    const results = await client.transact('Open_vSwitch', [
      { op: 'insert', table: 'Bridge', row: { name: 'br0' }, uuidName: 'b' },
      { op: 'delete', table: 'Port', where: [['name', '==', 'p']] },
    ]);
    expect(results[0]?.uuid?.uuid).toBe(U1);
    expect(results[1]?.count).toBe(1);
    expect(server.requests[0]).toMatchObject({
      method: 'transact',
      params: [
        'Open_vSwitch',
        { op: 'insert', table: 'Bridge', row: { name: 'br0' }, 'uuid-name': 'b' },
        { op: 'delete', table: 'Port', where: [['name', '==', 'p']] },
      ],
    });
  });

  it('surfaces a per-operation error as OVSDB_TXN_FAILED with details', async () => {
    const { client } = await setup(() => ({
      result: [{ error: 'constraint violation', details: 'duplicate name' }, null],
    }));
    const err = await rejection(
      client.transact('Open_vSwitch', [
        { op: 'insert', table: 'Bridge', row: { name: 'br0' } },
        { op: 'comment', comment: 'x' },
      ]),
    );
    expect(err).toMatchObject({
      code: 'OVSDB_TXN_FAILED',
      opIndex: 0,
      op: 'insert',
      details: 'duplicate name',
    });
  });

  it('implements list_dbs, get_schema and echo', async () => {
    const { client } = await setup((req) => {
      if (req.method === 'list_dbs') return { result: ['Open_vSwitch', '_Server'] };
      if (req.method === 'get_schema') {
        return { result: { name: 'Open_vSwitch', version: '8.3.1', tables: { Bridge: { columns: {} } } } };
      }
      return { result: req.params };
    });
    expect(await client.listDbs()).toEqual(['Open_vSwitch', '_Server']);
    expect((await client.getSchema('Open_vSwitch')).version).toBe('8.3.1');
    expect(await client.echo(['x'])).toEqual(['x']);
  });

  it('delivers monitor_cond initial state, update2 notifications, and re-arms after a reconnect', async () => {
    let generation = 0;
    const handler = (req: ScriptedRequest): ScriptedReply => {
      if (req.method === 'monitor_cond') {
        generation++;
        return { result: { Bridge: { [U1]: { initial: { name: `br-gen${generation}` } } } } };
      }
      return { result: {} };
    };
    const { server, client } = await setup(handler);
    const seen: [TableUpdates2, UpdateInfo][] = [];
    const handle = await client.monitorCond(
      'Open_vSwitch',
      { Bridge: { columns: ['name'], where: [['name', '!=', '']] } },
      (u, info) => seen.push([u, info]),
    );
    expect(server.requests[0]).toMatchObject({
      method: 'monitor_cond',
      params: ['Open_vSwitch', handle.id, { Bridge: { columns: ['name'], where: [['name', '!=', '']] } }],
    });
    expect(seen[0]).toEqual([
      { Bridge: { [U1]: { kind: 'initial', row: { name: 'br-gen1' } } } },
      { initial: true },
    ]);

    server.send({
      method: 'update2',
      params: [handle.id, { Bridge: { [U1]: { modify: { name: 'x' } } } }],
      id: null,
    });
    server.send({ method: 'update2', params: ['someone-else', { Bridge: {} }], id: null });
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toEqual([
      { Bridge: { [U1]: { kind: 'modify', diff: { name: 'x' } } } },
      { initial: false },
    ]);

    await server.crash();
    await server.listen();
    await expect.poll(() => seen.length).toBe(3);
    expect(seen[2]).toEqual([
      { Bridge: { [U1]: { kind: 'initial', row: { name: 'br-gen2' } } } },
      { initial: true },
    ]);

    await handle.cancel();
    expect(server.requests.at(-1)).toMatchObject({ method: 'monitor_cancel', params: [handle.id] });
    await handle.cancel(); // idempotent: no second request
    expect(server.requests.filter((r) => r.method === 'monitor_cancel')).toHaveLength(1);
  });

  it('delivers update (v1) notifications and survives a malformed one', async () => {
    const { server, client } = await setup(() => ({ result: {} }));
    const seen: TableUpdates[] = [];
    const handle = await client.monitor('Open_vSwitch', { Interface: { columns: ['ofport'] } }, (u) =>
      seen.push(u),
    );
    server.send({ method: 'update', params: [handle.id, { Interface: 'garbage' }], id: null });
    server.send({
      method: 'update',
      params: [handle.id, { Interface: { [U1]: { new: { ofport: 3 } } } }],
      id: null,
    });
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toEqual({ Interface: { [U1]: { new: { ofport: 3 } } } });
    expect(client.isConnected).toBe(true);
  });

  it('tracks locks: granted, queued then locked, stolen, lost on disconnect and re-requested', async () => {
    const { server, client } = await setup((req) => {
      if (req.method === 'lock') return { result: { locked: req.params[0] === 'a' } };
      return { result: { locked: true } };
    });
    const events: LockEvent[] = [];
    client.onLockEvent((e) => events.push(e));
    expect(await client.lock('a')).toBe(true);
    expect(await client.lock('b')).toBe(false);
    server.send({ method: 'locked', params: ['b'], id: null });
    server.send({ method: 'stolen', params: ['a'], id: null });
    await expect.poll(() => events.length).toBe(2);
    expect(events).toEqual([
      { type: 'locked', lock: 'b' },
      { type: 'stolen', lock: 'a' },
    ]);
    await server.crash();
    await server.listen();
    await client.waitConnected();
    await expect.poll(() => events.length).toBe(4);
    expect(events.slice(2)).toEqual([
      { type: 'lost', lock: 'b' },
      { type: 'locked', lock: 'a' },
    ]);
    await client.unlock('a');
    await client.steal('c');
    expect(server.requests.slice(-2).map((r) => r.method)).toEqual(['unlock', 'steal']);
  });

  it('changes monitor_cond conditions and re-arms with the new ones after a reconnect', async () => {
    let refuse = false;
    const { server, client } = await setup((req) => {
      if (req.method === 'monitor_cond' && refuse && req.params[1] !== 'm1')
        return { error: 'unknown table' };
      return { result: {} };
    });
    const a = await client.monitorCond('Open_vSwitch', { Interface: { columns: ['name'] } }, () => {});
    const b = await client.monitorCond('Open_vSwitch', { Port: {} }, () => {});
    await a.changeConditions({ Interface: [['name', '==', 'gw0']] });
    expect(server.requests.at(-1)).toMatchObject({
      method: 'monitor_cond_change',
      params: [a.id, a.id, { Interface: [{ where: [['name', '==', 'gw0']] }] }],
    });
    refuse = true;
    const before = server.requests.length;
    await server.crash();
    await server.listen();
    const rearmed = () => server.requests.slice(before).filter((r) => r.method === 'monitor_cond');
    await expect.poll(() => rearmed().length).toBe(2);
    await client.waitConnected();
    expect(rearmed().map((r) => r.params)).toEqual([
      ['Open_vSwitch', a.id, { Interface: { columns: ['name'], where: [['name', '==', 'gw0']] } }],
      ['Open_vSwitch', b.id, { Port: {} }],
    ]);
    // The refused monitor was dropped instead of failing every reconnect; the connection is up.
    expect(client.isConnected).toBe(true);
    await b.cancel();
    expect(server.requests.filter((r) => r.method === 'monitor_cancel')).toHaveLength(0);
  });
});
