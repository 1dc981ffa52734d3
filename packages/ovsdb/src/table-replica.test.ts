import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { OvsdbRpcClient } from './client.js';
import { ovsMap, ovsSet } from './codec/value.js';
import { OvsdbError } from './errors.js';
import { type ReplicaEvent, TableReplica } from './table-replica.js';
import { type ScriptedRequest, ScriptedServer } from './testing/scripted-server.js';

const logger = pino({ level: 'silent' });
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

const SCHEMA = {
  name: 'Open_vSwitch',
  version: '8.3.1',
  tables: {
    Interface: {
      columns: {
        name: { type: 'string' },
        ofport: { type: { key: 'integer', min: 0, max: 1 } },
        external_ids: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
      },
    },
  },
};

describe('TableReplica', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup() {
    let snapshot: Record<string, unknown> = { Interface: { [A]: { initial: { name: 'gw0', ofport: 2 } } } };
    const server = new ScriptedServer((req: ScriptedRequest) => {
      if (req.method === 'get_schema') return { result: SCHEMA };
      if (req.method === 'monitor_cond') return { result: snapshot };
      return { result: {} };
    });
    await server.listen();
    cleanups.push(() => server.close());
    const client = new OvsdbRpcClient({
      endpoint: server.path,
      logger,
      backoff: { initialMs: 5, maxMs: 20, jitter: 0 },
    });
    cleanups.push(() => client.stop());
    await client.start();
    const replica = new TableReplica(client, {
      db: 'Open_vSwitch',
      table: 'Interface',
      columns: ['name', 'ofport', 'external_ids'],
      logger,
    });
    cleanups.push(() => replica.stop());
    const events: ReplicaEvent[] = [];
    replica.on((e) => events.push(e));
    await replica.start();
    const monitorId = String(server.requests.find((r) => r.method === 'monitor_cond')!.params[1]);
    const update = (rows: Record<string, unknown>) =>
      server.send({ method: 'update2', params: [monitorId, { Interface: rows }], id: null });
    return {
      server,
      replica,
      events,
      update,
      setSnapshot: (s: Record<string, unknown>) => {
        snapshot = s;
      },
    };
  }

  it('loads the snapshot with set columns normalised and applies insert, modify and delete', async () => {
    const { replica, events, update } = await setup();
    expect(replica.rows.get(A)).toEqual({ name: 'gw0', ofport: ovsSet(2) });
    expect(events).toEqual([{ type: 'reset' }]);

    update({ [B]: { insert: { name: 'p0', external_ids: ['map', [['pod', 'a']]] } } });
    update({ [B]: { modify: { ofport: 5, external_ids: ['map', [['pod', 'b']]] } } });
    update({ [A]: { delete: null } });
    await expect.poll(() => events.length).toBe(4);
    expect(events.slice(1).map((e) => e.type)).toEqual(['insert', 'modify', 'delete']);
    expect(replica.rows.get(B)).toEqual({
      name: 'p0',
      ofport: ovsSet(5),
      external_ids: ovsMap({ pod: 'b' }),
    });
    expect(replica.rows.has(A)).toBe(false);
  });

  it('waits for a row to match, and times out with OVSDB_TIMEOUT', async () => {
    const { replica, update } = await setup();
    expect((await replica.waitFor((r) => r['name'] === 'gw0', 10)).uuid).toBe(A);
    const pending = replica.waitFor((r) => r['name'] === 'p0' && r['ofport'] instanceof Object, 2_000);
    update({ [B]: { insert: { name: 'p0' } } });
    update({ [B]: { modify: { ofport: 7 } } });
    const found = await pending;
    expect(found.row['ofport']).toEqual(ovsSet(7));
    const err = await replica.waitFor(() => false, 20).catch((e: unknown) => e);
    expect(OvsdbError.is(err) && err.code).toBe('OVSDB_TIMEOUT');
  });

  it('starts over from the new snapshot after a reconnect', async () => {
    const { server, replica, events, setSnapshot } = await setup();
    setSnapshot({ Interface: { [B]: { initial: { name: 'p9' } } } });
    await server.crash();
    await server.listen();
    await expect.poll(() => events.filter((e) => e.type === 'reset').length).toBe(2);
    expect([...replica.rows.keys()]).toEqual([B]);
  });
});
