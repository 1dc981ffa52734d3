import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, ManagedProcess, makeTempDir, run, type TempDir, waitFor } from '@antrea-ts/harness';
import { OVS_DB, OvsBridgeClient, OvsdbError, OvsdbRpcClient, type TableUpdates2 } from '@antrea-ts/ovsdb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

async function rejection(p: Promise<unknown>): Promise<OvsdbError> {
  try {
    await p;
  } catch (err) {
    if (OvsdbError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

/**
 * Only ovsdb-server (no ovs-vswitchd): this file kills and restarts the database server itself,
 * which startOvs() does not offer, keeping the same database file and socket path.
 */
describe('OVSDB client across an ovsdb-server crash', () => {
  let dir: TempDir;
  let server: ManagedProcess | undefined;
  let client: OvsdbRpcClient;
  let socket: string;
  let dbFile: string;
  let tcpPort: number;

  const startServer = async () => {
    const started = new ManagedProcess({
      name: 'ovsdb-server',
      logFile: join(dir.path, 'ovsdb-server.log'),
      argv: [
        'ovsdb-server',
        dbFile,
        `--remote=punix:${socket}`,
        `--remote=ptcp:${tcpPort}:127.0.0.1`,
        `--unixctl=${join(dir.path, 'ovsdb-server.ctl')}`,
        `--pidfile=${join(dir.path, 'ovsdb-server.pid')}`,
      ],
    });
    server = started;
    await waitFor('ovsdb-server socket', async () => {
      started.assertRunning();
      return existsSync(socket);
    });
  };

  beforeAll(async () => {
    dir = makeTempDir('ovsdb-reconnect');
    socket = join(dir.path, 'db.sock');
    dbFile = join(dir.path, 'conf.db');
    tcpPort = await freePort();
    await run(['ovsdb-tool', 'create', dbFile, '/usr/share/openvswitch/vswitch.ovsschema']);
    await startServer();
    await run(['ovs-vsctl', `--db=unix:${socket}`, '--no-wait', 'init']);
    client = new OvsdbRpcClient({
      endpoint: `unix:${socket}`,
      logger,
      backoff: { initialMs: 20, maxMs: 200, jitter: 0.1 },
      probeIntervalMs: 1_000,
    });
    await client.start();
  });

  afterAll(async () => {
    await client?.stop();
    await server?.stop();
    dir?.remove();
  });

  it('fails the in-flight transaction with OVSDB_DISCONNECTED, reconnects after restart, and re-arms monitors', async () => {
    const bridges = new OvsBridgeClient(client, { logger });
    // datapath_type is only stored: no ovs-vswitchd runs here.
    await bridges.ensureBridge('br-before', { datapathType: 'netdev' });

    const initials: TableUpdates2[] = [];
    const changes: TableUpdates2[] = [];
    await client.monitorCond(OVS_DB, { Bridge: { columns: ['name'] } }, (u, info) =>
      (info.initial ? initials : changes).push(u),
    );
    expect(initials).toHaveLength(1);

    // A transaction the server holds open: it waits for a Bridge that never appears.
    const inFlight = client.transact(
      OVS_DB,
      [
        {
          op: 'wait',
          table: 'Bridge',
          where: [['name', '==', 'never']],
          columns: ['name'],
          until: '!=',
          rows: [],
          timeout: 60_000,
        },
      ],
      { timeoutMs: 90_000 },
    );
    // Make sure it reached the server before the crash: a later request on the same connection
    // is answered only after the server read the earlier one.
    expect(await client.echo(['after-wait'])).toEqual(['after-wait']);
    const outcome = rejection(inFlight); // attach now: it rejects while kill() is still awaited

    await server!.kill();
    const err = await outcome;
    expect(err.code).toBe('OVSDB_DISCONNECTED');
    expect(err.message).toMatch(/transact/);
    await expect.poll(() => client.isConnected).toBe(false);

    // Requests made while the server is down wait for the reconnect instead of failing.
    const queued = client.listDbs({ timeoutMs: 30_000 });
    await startServer();
    expect(await queued).toContain(OVS_DB);
    await client.waitConnected(30_000);

    // The monitor was re-created on the new connection and delivered a fresh initial state.
    await expect.poll(() => initials.length).toBe(2);
    expect(
      Object.values(initials[1]!['Bridge'] ?? {}).map((u) => (u.kind === 'initial' ? u.row['name'] : '')),
    ).toEqual(['br-before']);
    await bridges.ensureBridge('br-after', { datapathType: 'netdev' });
    await expect
      .poll(() => changes.flatMap((u) => Object.values(u['Bridge'] ?? {})).some((r) => r.kind === 'insert'))
      .toBe(true);
    expect((await bridges.getBridge('br-after'))?.name).toBe('br-after');
  });

  it('fails fast with OVSDB_DISCONNECTED when the server stays down past the request timeout', async () => {
    await server!.kill();
    await expect.poll(() => client.isConnected).toBe(false);
    const err = await rejection(client.listDbs({ timeoutMs: 300 }));
    expect(err.code).toBe('OVSDB_DISCONNECTED');
    expect(err.message).toMatch(/not connected/);
    await startServer();
    await client.waitConnected(30_000);
    expect(await client.listDbs()).toContain(OVS_DB);
  });

  it('speaks the same protocol over TCP', async () => {
    const tcp = new OvsdbRpcClient({ endpoint: `tcp:127.0.0.1:${tcpPort}`, logger });
    try {
      await tcp.start(undefined, { timeoutMs: 10_000 });
      expect(await tcp.listDbs()).toContain(OVS_DB);
      expect((await new OvsBridgeClient(tcp, { logger }).getBridge('br-after'))?.name).toBe('br-after');
    } finally {
      await tcp.stop();
    }
  });
});
