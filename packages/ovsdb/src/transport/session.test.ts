import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { OvsdbError } from '../errors.js';
import { ScriptedServer } from '../testing/scripted-server.js';
import { ReconnectingSession } from './session.js';

const logger = pino({ level: 'silent' });
const fastBackoff = { initialMs: 5, maxMs: 20, jitter: 0 };

async function rejection(p: Promise<unknown>): Promise<OvsdbError> {
  try {
    await p;
  } catch (err) {
    if (OvsdbError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('ReconnectingSession', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(handler = (): { result: unknown } | 'silent' => ({ result: ['Open_vSwitch'] })) {
    const server = new ScriptedServer(handler);
    cleanups.push(() => server.close());
    const connects: number[] = [];
    const session = new ReconnectingSession({
      endpoint: `unix:${server.path}`,
      logger,
      backoff: fastBackoff,
      requestTimeoutMs: 2_000,
      onConnected: async () => {
        connects.push(Date.now());
      },
    });
    cleanups.push(() => session.stop());
    return { server, session, connects };
  }

  it('waits for the server to appear, then serves requests queued meanwhile', async () => {
    const { server, session, connects } = await setup();
    session.start();
    const queued = session.request('list_dbs', []);
    await new Promise((r) => setTimeout(r, 50)); // several failed attempts against a missing socket
    expect(connects).toHaveLength(0);
    await server.listen();
    expect(await queued).toEqual(['Open_vSwitch']);
    expect(connects).toHaveLength(1);
  });

  it('rejects in-flight requests on a drop and reconnects for the next ones', async () => {
    const { server, session, connects } = await setup(() => 'silent');
    await server.listen();
    session.start();
    const inFlight = session.request('transact', ['Open_vSwitch']);
    await server.waitForRequests(1);
    await server.crash();
    expect((await rejection(inFlight)).code).toBe('OVSDB_DISCONNECTED');
    server.setHandler(() => ({ result: ['again'] }));
    await server.listen();
    expect(await session.request('list_dbs', [])).toEqual(['again']);
    expect(connects).toHaveLength(2);
  });

  it('gives up waiting for a connection after the request timeout with OVSDB_DISCONNECTED', async () => {
    const { session } = await setup();
    session.start();
    const err = await rejection(session.request('list_dbs', [], { timeoutMs: 40 }));
    expect(err.code).toBe('OVSDB_DISCONNECTED');
    expect(err.message).toMatch(/not connected/);
    // The last connect failure is kept as the cause, so logs say why.
    expect((err.cause as OvsdbError).code).toBe('OVSDB_DISCONNECTED');
  });

  it('rejects waiters with OVSDB_CLOSED on stop, and later requests too', async () => {
    const { session } = await setup();
    session.start();
    const waiting = session.request('list_dbs', []);
    await session.stop();
    expect((await rejection(waiting)).code).toBe('OVSDB_CLOSED');
    expect((await rejection(session.request('list_dbs', []))).code).toBe('OVSDB_CLOSED');
    await session.stop(); // idempotent
  });

  it('stops when the start signal aborts', async () => {
    const { server, session } = await setup();
    await server.listen();
    const ac = new AbortController();
    session.start(ac.signal);
    await session.connected();
    ac.abort();
    await expect.poll(() => session.isConnected).toBe(false);
    expect((await rejection(session.request('list_dbs', []))).code).toBe('OVSDB_CLOSED');
  });

  it('rejects an in-flight request on stop with OVSDB_DISCONNECTED caused by OVSDB_CLOSED', async () => {
    const { server, session } = await setup(() => 'silent');
    await server.listen();
    session.start();
    const inFlight = session.request('transact', []);
    await server.waitForRequests(1);
    await session.stop();
    const err = await rejection(inFlight);
    expect(err.code).toBe('OVSDB_DISCONNECTED');
    expect((err.cause as OvsdbError).code).toBe('OVSDB_CLOSED');
  });
});
