import { createNetns, type Netns, type OvsInstance, startOvs, uniqueTag } from '@antrea-ts/harness';
import {
  applyRowDiff,
  type DatabaseSchema,
  namedUuid,
  normalizeRow,
  type Operation,
  OVS_DB,
  OvsBridgeClient,
  OvsdbError,
  OvsdbRpcClient,
  ovsMap,
  ovsSet,
  type Row,
  setItems,
  TableReplica,
  type TableUpdates,
  type TableUpdates2,
} from '@antrea-ts/ovsdb';
import { EXPECTED_BRIDGE_OBSERVATIONS, observeBridgeClient } from '@antrea-ts/ovsdb/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const BR = 'br-ats';

async function rejection(p: Promise<unknown>): Promise<OvsdbError> {
  try {
    await p;
  } catch (err) {
    if (OvsdbError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

/** ovs-vsctl prints strings quoted only when they need it; compare unquoted. */
const unquote = (s: string): string => s.trim().replace(/^"(.*)"$/, '$1');

describe('OVSDB client against a real ovsdb-server and ovs-vswitchd', () => {
  let node: Netns;
  let ovs: OvsInstance;
  let client: OvsdbRpcClient;
  let bridges: OvsBridgeClient;

  beforeAll(async () => {
    // A netns of our own: userspace datapaths of several ovs-vswitchd in one namespace fight over
    // the same tap names (ovs-netdev, bridge ports). The db socket is a path, reachable from here.
    node = await createNetns(`ats-${uniqueTag()}-ovsdb`);
    ovs = await startOvs({ netns: node.name, logger });
    client = new OvsdbRpcClient({ endpoint: `unix:${ovs.dbSocket}`, logger });
    await client.start();
    bridges = new OvsBridgeClient(client, { logger });
  });

  afterAll(async () => {
    await client?.stop();
    await ovs?.stop();
    await node?.delete();
  });

  it('lists databases and reads the Open_vSwitch schema', async () => {
    expect(await client.listDbs()).toContain(OVS_DB);
    const schema = await client.getSchema(OVS_DB);
    expect(schema.name).toBe(OVS_DB);
    expect(schema.tables['Interface']?.columns['ofport']?.kind).toBe('set');
    expect(schema.tables['Interface']?.columns['external_ids']?.kind).toBe('map');
    expect(await client.echo(['hello'])).toEqual(['hello']);
  });

  it('creates a netdev bridge speaking OpenFlow15, idempotently', async () => {
    const settings = {
      datapathType: 'netdev',
      protocols: ['OpenFlow15'] as const,
      failMode: 'secure' as const,
      otherConfig: { 'disable-in-band': 'true' },
      externalIds: { 'antrea-ts': 'test' },
    };
    const first = await bridges.ensureBridge(BR, { ...settings, protocols: [...settings.protocols] });
    expect(first.created).toBe(true);
    const again = await bridges.ensureBridge(BR, { ...settings, protocols: [...settings.protocols] });
    expect(again).toEqual({ uuid: first.uuid, created: false });

    expect((await ovs.vsctl(['list-br'])).trim()).toBe(BR);
    expect(unquote(await ovs.vsctl(['get', 'bridge', BR, 'datapath_type']))).toBe('netdev');
    expect((await ovs.vsctl(['get', 'bridge', BR, 'protocols'])).trim()).toBe('[OpenFlow15]');
    expect(unquote(await ovs.vsctl(['get', 'bridge', BR, 'fail_mode']))).toBe('secure');
    expect(unquote(await ovs.vsctl(['get', 'bridge', BR, 'other_config:disable-in-band']))).toBe('true');
    // ovs-vswitchd took it: the bridge answers OpenFlow 1.5 on its management socket.
    await bridges.waitForVswitchd();
    const show = await ovs.ofctl(['-O', 'OpenFlow15', 'show', `unix:${ovs.bridgeMgmtSocket(BR)}`]);
    expect(show).toMatch(/OFPT_FEATURES_REPLY \(OF1\.5\)/);

    const read = await bridges.getBridge(BR);
    expect(read).toMatchObject({
      uuid: first.uuid,
      name: BR,
      datapathType: 'netdev',
      protocols: ['OpenFlow15'],
      failMode: 'secure',
      otherConfig: { 'disable-in-band': 'true' },
      externalIds: { 'antrea-ts': 'test' },
    });
    expect(await bridges.getBridge('no-such-bridge')).toBeUndefined();
  });

  it('adds internal and flow-based geneve ports and reads back the ofports', async () => {
    await bridges.addPort(BR, {
      name: 'ats-gw0',
      type: 'internal',
      ofportRequest: 2,
      mtuRequest: 1450,
      externalIds: { 'antrea-type': 'gateway' },
    });
    await bridges.addPort(BR, {
      name: 'ats-tun0',
      type: 'geneve',
      ofportRequest: 1,
      options: { remote_ip: 'flow', key: 'flow', dst_port: '6081' },
      externalIds: { 'antrea-type': 'tunnel' },
    });
    expect(await bridges.waitForOfport('ats-gw0')).toBe(2);
    expect(await bridges.waitForOfport('ats-tun0')).toBe(1);
    expect((await ovs.vsctl(['get', 'interface', 'ats-gw0', 'ofport'])).trim()).toBe('2');
    expect((await ovs.vsctl(['get', 'interface', 'ats-tun0', 'type'])).trim()).toBe('geneve');
    const options = await ovs.vsctl(['get', 'interface', 'ats-tun0', 'options']);
    expect(options).toMatch(/remote_ip=flow/);
    expect(options).toMatch(/key=flow/);
    expect(options).toMatch(/dst_port="6081"/);

    // An ofport with no request is assigned too, and comes back from the server-side wait.
    await bridges.addPort(BR, { name: 'ats-p0', type: 'internal' });
    const ofport = await bridges.waitForOfport('ats-p0');
    expect(ofport).toBeGreaterThan(0);
    expect((await ovs.vsctl(['get', 'interface', 'ats-p0', 'ofport'])).trim()).toBe(String(ofport));
  });

  it('reports a missing bridge, a missing interface, and a duplicate port with coded errors', async () => {
    expect((await rejection(bridges.addPort('no-such-bridge', { name: 'x0', type: 'internal' }))).code).toBe(
      'OVSDB_NOT_FOUND',
    );
    expect((await rejection(bridges.waitForOfport('no-such-iface', 500))).code).toBe('OVSDB_NOT_FOUND');
    const dup = await rejection(bridges.addPort(BR, { name: 'ats-gw0', type: 'internal' }));
    expect(dup.code).toBe('OVSDB_TXN_FAILED');
    expect(dup.message).toMatch(/constraint violation/);
  });

  it('round-trips external_ids between our client and ovs-vsctl', async () => {
    const ports = await bridges.listPorts(BR);
    expect(ports.map((p) => p.name)).toEqual(['ats-gw0', 'ats-p0', 'ats-tun0', BR]);
    const gw = ports.find((p) => p.name === 'ats-gw0')!;
    expect(gw.externalIds).toEqual({ 'antrea-type': 'gateway' });
    expect(gw.interfaces).toHaveLength(1);
    expect(gw.interfaces[0]).toMatchObject({
      name: 'ats-gw0',
      type: 'internal',
      ofport: 2,
      ofportRequest: 2,
      mtuRequest: 1450,
      externalIds: { 'antrea-type': 'gateway' },
    });
    expect(unquote(await ovs.vsctl(['get', 'port', 'ats-gw0', 'external_ids:antrea-type']))).toBe('gateway');

    // Written by ovs-vsctl, read by us; values with characters that need quoting survive.
    await ovs.vsctl([
      'set',
      'port',
      'ats-p0',
      'external_ids:pod-name=web-0',
      'external_ids:ip="10.0.0.5,fe80::1"',
    ]);
    const p0 = (await bridges.listPorts(BR)).find((p) => p.name === 'ats-p0')!;
    expect(p0.externalIds).toEqual({ 'pod-name': 'web-0', ip: '10.0.0.5,fe80::1' });

    // Written by us, read by ovs-vsctl.
    await bridges.updatePortExternalIds('ats-p0', { 'pod-name': 'web-1', 'pod-namespace': 'default' });
    expect(unquote(await ovs.vsctl(['get', 'port', 'ats-p0', 'external_ids:pod-name']))).toBe('web-1');
    expect(await ovs.vsctl(['get', 'port', 'ats-p0', 'external_ids'])).not.toMatch(/ip=/);
  });

  it('sets bridge and interface columns', async () => {
    await bridges.updateBridge(BR, { protocols: ['OpenFlow13', 'OpenFlow15'], failMode: null });
    expect((await ovs.vsctl(['get', 'bridge', BR, 'protocols'])).trim()).toBe('[OpenFlow13, OpenFlow15]');
    expect((await ovs.vsctl(['get', 'bridge', BR, 'fail_mode'])).trim()).toBe('[]');
    await bridges.updateBridge(BR, { protocols: ['OpenFlow15'], failMode: 'secure' });
    await bridges.updateInterface('ats-p0', { mtuRequest: 1400, externalIds: { k: 'v' } });
    expect((await ovs.vsctl(['get', 'interface', 'ats-p0', 'mtu_request'])).trim()).toBe('1400');
    expect((await rejection(bridges.updateInterface('nope', { mtuRequest: 1 }))).code).toBe(
      'OVSDB_NOT_FOUND',
    );
    expect((await rejection(bridges.updateBridge('nope', { protocols: [] }))).code).toBe('OVSDB_NOT_FOUND');
  });

  it('delivers monitor_cond updates that rebuild the row, including the ofport set by ovs-vswitchd', async () => {
    const schema: DatabaseSchema = await client.getSchema(OVS_DB);
    const rows = new Map<string, Row>();
    let initials = 0;
    const handle = await client.monitorCond(
      OVS_DB,
      { Interface: { columns: ['name', 'ofport', 'external_ids'], where: [['name', '==', 'ats-mon0']] } },
      (updates: TableUpdates2, info) => {
        if (info.initial) {
          initials++;
          rows.clear();
        }
        for (const [id, u] of Object.entries(updates['Interface'] ?? {})) {
          if (u.kind === 'delete') rows.delete(id);
          else if (u.kind === 'modify')
            rows.set(id, applyRowDiff(rows.get(id) ?? {}, u.diff, schema.tables['Interface']!));
          else rows.set(id, normalizeRow(u.row, schema.tables['Interface']!));
        }
      },
    );
    expect(initials).toBe(1);
    expect(rows.size).toBe(0);
    await ovs.vsctl([
      'add-port',
      BR,
      'ats-mon0',
      '--',
      'set',
      'interface',
      'ats-mon0',
      'type=internal',
      'ofport_request=40',
      'external_ids:a=1',
    ]);
    await expect.poll(() => [...rows.values()].map((r) => r['ofport'])).toEqual([ovsSet(40)]);
    const row = [...rows.values()][0]!;
    expect(row['name']).toBe('ats-mon0');
    expect(row['external_ids']).toEqual(ovsMap({ a: '1' }));
    await ovs.vsctl(['set', 'interface', 'ats-mon0', 'external_ids:a=2', 'external_ids:b=3']);
    await expect.poll(() => [...rows.values()][0]?.['external_ids']).toEqual(ovsMap({ a: '2', b: '3' }));
    await ovs.vsctl(['del-port', BR, 'ats-mon0']);
    await expect.poll(() => rows.size).toBe(0);
    await handle.cancel();
  });

  it('delivers monitor (v1) updates with old and new rows', async () => {
    const seen: TableUpdates[] = [];
    const handle = await client.monitor(
      OVS_DB,
      { Port: { columns: ['name', 'external_ids'] } },
      (u, info) => {
        if (!info.initial) seen.push(u);
      },
    );
    await bridges.updatePortExternalIds('ats-p0', { phase: 'two' });
    await expect.poll(() => seen.length).toBeGreaterThan(0);
    const change = Object.values(seen[0]!['Port'] ?? {})[0]!;
    expect(change.new?.['name']).toBe('ats-p0');
    expect(change.new?.['external_ids']).toEqual(ovsMap({ phase: 'two' }));
    expect(change.old?.['external_ids']).toBeDefined();
    await handle.cancel();
    const before = seen.length;
    await bridges.updatePortExternalIds('ats-p0', { phase: 'three' });
    // A cancelled monitor stays quiet: prove the server processed the change, then check.
    expect(unquote(await ovs.vsctl(['get', 'port', 'ats-p0', 'external_ids:phase']))).toBe('three');
    expect(seen.length).toBe(before);
  });

  it('moves a monitor_cond to other rows with monitor_cond_change', async () => {
    const names = new Map<string, string>();
    const handle = await client.monitorCond(
      OVS_DB,
      { Interface: { columns: ['name'], where: [['name', '==', 'ats-gw0']] } },
      (updates) => {
        for (const [id, u] of Object.entries(updates['Interface'] ?? {})) {
          if (u.kind === 'delete') names.delete(id);
          else if (u.kind !== 'modify') names.set(id, String(u.row['name']));
        }
      },
    );
    expect([...names.values()]).toEqual(['ats-gw0']);
    await handle.changeConditions({ Interface: [['name', '==', 'ats-tun0']] });
    // The server sends the resulting delete/insert before it answers monitor_cond_change.
    expect([...names.values()]).toEqual(['ats-tun0']);
    await handle.cancel();
  });

  it('aborts the whole transaction when a wait operation fails, or on an abort operation', async () => {
    const ops = (last: 'wait' | 'abort'): Operation[] => [
      { op: 'insert', table: 'Interface', uuidName: 'i', row: { name: 'ats-never', type: 'internal' } },
      {
        op: 'insert',
        table: 'Port',
        uuidName: 'p',
        row: { name: 'ats-never', interfaces: ovsSet(namedUuid('i')) },
      },
      last === 'wait'
        ? {
            op: 'wait',
            table: 'Bridge',
            where: [['name', '==', BR]],
            columns: ['datapath_type'],
            until: '==',
            rows: [{ datapath_type: 'system' }],
            timeout: 0,
          }
        : { op: 'abort' },
    ];
    const waitErr = await rejection(client.transact(OVS_DB, ops('wait')));
    expect(waitErr).toMatchObject({ code: 'OVSDB_TXN_FAILED', opIndex: 2, op: 'wait', error: 'timed out' });
    const abortErr = await rejection(client.transact(OVS_DB, ops('abort')));
    expect(abortErr).toMatchObject({ code: 'OVSDB_TXN_FAILED', opIndex: 2, op: 'abort', error: 'aborted' });
    expect(await bridges.getInterface('ats-never')).toBeUndefined();
    expect(await ovs.vsctl(['list-ports', BR])).not.toMatch(/ats-never/);
    // The connection is still healthy after the failures.
    expect(await client.listDbs()).toContain(OVS_DB);
  });

  it('reports an interface ovs-vswitchd cannot create as OVSDB_INTERFACE_ERROR', async () => {
    await bridges.addPort(BR, { name: 'ats-bad0', type: 'no-such-type' });
    const err = await rejection(bridges.waitForOfport('ats-bad0', 5_000));
    expect(err.code).toBe('OVSDB_INTERFACE_ERROR');
    await bridges.deletePort(BR, 'ats-bad0');
  });

  it('hands a lock between two clients: queued, granted on unlock, stolen', async () => {
    const other = new OvsdbRpcClient({ endpoint: `unix:${ovs.dbSocket}`, logger });
    await other.start();
    try {
      const mine: string[] = [];
      const theirs: string[] = [];
      client.onLockEvent((e) => mine.push(`${e.type}:${e.lock}`));
      other.onLockEvent((e) => theirs.push(`${e.type}:${e.lock}`));
      expect(await client.lock('ats_lock')).toBe(true);
      expect(await other.lock('ats_lock')).toBe(false);
      await client.unlock('ats_lock');
      await expect.poll(() => theirs).toEqual(['locked:ats_lock']);
      // The assert operation proves who holds the lock server-side.
      await other.transact(OVS_DB, [{ op: 'assert', lock: 'ats_lock' }]);
      expect((await rejection(client.transact(OVS_DB, [{ op: 'assert', lock: 'ats_lock' }]))).code).toBe(
        'OVSDB_TXN_FAILED',
      );
      await client.steal('ats_lock');
      await expect.poll(() => theirs).toEqual(['locked:ats_lock', 'stolen:ats_lock']);
      await client.transact(OVS_DB, [{ op: 'assert', lock: 'ats_lock' }]);
      expect(mine).toEqual([]);
      await client.unlock('ats_lock');
      expect((await rejection(client.lock('bad-name'))).code).toBe('OVSDB_PROTOCOL');
    } finally {
      await other.stop();
    }
  });

  it('matches the FakeBridgeClient on the shared contract scenario', async () => {
    expect(await observeBridgeClient(bridges)).toEqual(EXPECTED_BRIDGE_OBSERVATIONS);
  });

  it('keeps a TableReplica of interfaces current and waits on it for an ofport', async () => {
    const replica = new TableReplica(client, {
      db: OVS_DB,
      table: 'Interface',
      columns: ['name', 'ofport', 'external_ids'],
      logger,
    });
    await replica.start();
    try {
      const names = () => [...replica.rows.values()].map((r) => r['name']);
      expect(names()).toContain('ats-gw0');
      const ofport = replica.waitFor(
        (r) => r['name'] === 'ats-rep0' && setItems(r['ofport']).length > 0,
        10_000,
      );
      await ovs.vsctl(['add-port', BR, 'ats-rep0', '--', 'set', 'interface', 'ats-rep0', 'type=internal']);
      const { row } = await ofport;
      expect(setItems(row['ofport'])[0]).toBe(
        Number(await ovs.vsctl(['get', 'interface', 'ats-rep0', 'ofport'])),
      );
      await replica.setWhere([['name', '==', 'ats-rep0']]);
      expect(names()).toEqual(['ats-rep0']);
      await ovs.vsctl(['del-port', BR, 'ats-rep0']);
      await expect.poll(() => replica.rows.size).toBe(0);
    } finally {
      await replica.stop();
    }
  });

  it('deletes ports and the bridge', async () => {
    expect(await bridges.deletePort(BR, 'ats-p0')).toBe(true);
    expect(await bridges.deletePort(BR, 'ats-p0')).toBe(false);
    expect(await ovs.vsctl(['list-ports', BR])).not.toMatch(/ats-p0/);
    expect(await bridges.getInterface('ats-p0')).toBeUndefined();
    expect(await bridges.deleteBridge(BR)).toBe(true);
    expect(await bridges.deleteBridge(BR)).toBe(false);
    expect((await ovs.vsctl(['list-br'])).trim()).toBe('');
  });
});
