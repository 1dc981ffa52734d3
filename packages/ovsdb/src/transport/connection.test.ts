import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OvsdbError } from '../errors.js';
import { ScriptedServer } from '../testing/scripted-server.js';
import { JsonRpcConnection } from './connection.js';
import { connectEndpoint } from './endpoint.js';

const logger = pino({ level: 'silent' });

async function open(
  server: ScriptedServer,
  extra: Partial<ConstructorParameters<typeof JsonRpcConnection>[1]> = {},
) {
  const socket = await connectEndpoint({ kind: 'unix', path: server.path });
  const notifications: [string, unknown[]][] = [];
  const conn = new JsonRpcConnection(socket, {
    logger,
    onNotification: (m, p) => notifications.push([m, p]),
    ...extra,
  });
  await server.waitForClient();
  return { conn, notifications };
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

describe('JsonRpcConnection', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = new ScriptedServer((req) =>
      req.method === 'list_dbs' ? { result: ['Open_vSwitch'] } : 'silent',
    );
    await server.listen();
  });
  afterEach(() => server.close());

  it('matches replies to requests by id and uses distinct ids', async () => {
    const { conn } = await open(server);
    const [a, b] = await Promise.all([conn.request('list_dbs', []), conn.request('list_dbs', [])]);
    expect(a).toEqual(['Open_vSwitch']);
    expect(b).toEqual(['Open_vSwitch']);
    expect(new Set(server.requests.map((r) => r.id)).size).toBe(2);
    conn.close();
  });

  it('turns a JSON-RPC error into OVSDB_RPC_ERROR with the server text', async () => {
    server.setHandler(() => ({ error: { error: 'unknown database', details: 'nope' } }));
    const { conn } = await open(server);
    const err = await rejection(conn.request('get_schema', ['nope']));
    expect(err.code).toBe('OVSDB_RPC_ERROR');
    expect(err.message).toMatch(/unknown database: nope/);
    conn.close();
  });

  it('answers the server echo probe with the same params and id', async () => {
    const { conn } = await open(server);
    const replies: unknown[] = [];
    for (const s of server.sockets) s.on('data', (d) => replies.push(JSON.parse(d.toString())));
    server.send({ method: 'echo', params: ['ping', 1], id: 'echo' });
    await expect.poll(() => replies).toEqual([{ result: ['ping', 1], error: null, id: 'echo' }]);
    conn.close();
  });

  it('delivers notifications', async () => {
    const { conn, notifications } = await open(server);
    server.send({ method: 'update', params: ['m1', {}], id: null });
    await expect.poll(() => notifications).toEqual([['update', ['m1', {}]]]);
    conn.close();
  });

  it('rejects an in-flight request with OVSDB_DISCONNECTED when the server goes away', async () => {
    const { conn } = await open(server);
    const inFlight = conn.request('transact', ['Open_vSwitch']);
    await server.waitForRequests(1);
    await server.crash();
    const err = await rejection(inFlight);
    expect(err.code).toBe('OVSDB_DISCONNECTED');
    expect(err.message).toMatch(/transact reply/);
    expect(await conn.closed).toMatchObject({ code: 'OVSDB_DISCONNECTED' });
    expect((await rejection(conn.request('echo', []))).code).toBe('OVSDB_DISCONNECTED');
  });

  it('closes with OVSDB_PARSE on garbage and rejects what was pending', async () => {
    const { conn } = await open(server);
    const inFlight = conn.request('transact', []);
    await server.waitForRequests(1);
    server.sendRaw('{"id":99,"result":[],"error":null} <html>');
    const err = await rejection(inFlight);
    expect(err.code).toBe('OVSDB_DISCONNECTED');
    expect((err.cause as OvsdbError).code).toBe('OVSDB_PARSE');
    expect((await conn.closed)?.code).toBe('OVSDB_PARSE');
  });

  it('closes with OVSDB_PROTOCOL on JSON that is not JSON-RPC', async () => {
    const { conn } = await open(server);
    server.sendRaw('{"hello":"world"}');
    expect((await conn.closed)?.code).toBe('OVSDB_PROTOCOL');
  });

  it('times a request out with OVSDB_TIMEOUT and keeps the connection', async () => {
    const { conn } = await open(server);
    const err = await rejection(conn.request('transact', [], 30));
    expect(err.code).toBe('OVSDB_TIMEOUT');
    expect(conn.isOpen).toBe(true);
    expect(await conn.request('list_dbs', [])).toEqual(['Open_vSwitch']);
    conn.close();
  });

  it('declares a silent peer dead after an unanswered echo probe', async () => {
    // The server never answers anything: the probe times out and the connection is closed.
    const { conn } = await open(server, { probeIntervalMs: 20, probeTimeoutMs: 20 });
    const pending = conn.request('transact', []);
    expect((await conn.closed)?.code).toBe('OVSDB_TIMEOUT');
    expect((await rejection(pending)).code).toBe('OVSDB_DISCONNECTED');
    expect(server.requests.some((r) => r.method === 'echo')).toBe(true);
  });

  it('keeps a peer that answers probes', async () => {
    server.setHandler((req) => (req.method === 'echo' ? { result: req.params } : 'silent'));
    const { conn } = await open(server, { probeIntervalMs: 10, probeTimeoutMs: 200 });
    await expect
      .poll(() => server.requests.filter((r) => r.method === 'echo').length)
      .toBeGreaterThanOrEqual(3);
    expect(conn.isOpen).toBe(true);
    conn.close();
  });
});
