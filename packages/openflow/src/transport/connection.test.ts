import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenFlowBridge } from '../bridge.js';
import { encodeEchoRequest } from '../codec/basic.js';
import { OFPT } from '../codec/constants.js';
import { buildMatch } from '../codec/match.js';
import { encodePacketIn2 } from '../codec/packet.js';
import { OfBundleError, OfErrorReply } from '../errors.js';
import { FakeSwitch } from '../testing/fake-switch.js';
import { SAMPLE_FLOWS } from '../testing/sample-flows.js';
import { OfConnection } from './connection.js';

const logger = pino({ level: 'silent' });

function waitFor(cond: () => boolean, ms = 3000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      if (cond()) resolve();
      else if (Date.now() - start > ms) reject(new Error('condition not met in time'));
      else setTimeout(tick, 5);
    };
    tick();
  });
}

describe('OfConnection and OpenFlowBridge against a fake switch', () => {
  let dir: string;
  let path: string;
  let sw: FakeSwitch;
  const cleanups: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'antrea-ts-of-unit-'));
    path = join(dir, 'br.mgmt');
    sw = new FakeSwitch();
    await sw.listen(path);
  });

  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
    await sw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function bridge(opts: Partial<ConstructorParameters<typeof OpenFlowBridge>[0]> = {}): OpenFlowBridge {
    const b = new OpenFlowBridge({
      target: { path },
      logger,
      reconnectInitialDelayMs: 10,
      reconnectMaxDelayMs: 50,
      ...opts,
    });
    cleanups.push(() => b.stop());
    return b;
  }

  it('handshakes, then asks for NXT_PACKET_IN2 with a nonzero miss_send_len and the controller id', async () => {
    const b = bridge({ controllerId: 3 });
    await b.start();
    expect(b.features?.datapathId).toBe(0xabcn);
    const types = sw.received.map((m) => m[1]);
    expect(types.slice(0, 2)).toEqual([OFPT.HELLO, OFPT.FEATURES_REQUEST]);
    const config = sw.ofType(OFPT.SET_CONFIG)[0]!;
    expect(config.readUInt16BE(10)).toBe(0xffff);
    const nx = sw.ofType(OFPT.EXPERIMENTER).map((m) => m.readUInt32BE(12));
    expect(nx).toEqual([16, 20]); // SET_PACKET_IN_FORMAT, SET_CONTROLLER_ID
    expect(sw.ofType(OFPT.SET_ASYNC)).toHaveLength(1);
  });

  it('connects over TCP as well', async () => {
    const tcp = new FakeSwitch();
    const port = await tcp.listen(0);
    const b = new OpenFlowBridge({ target: { host: '127.0.0.1', port }, logger });
    try {
      await b.start();
      expect(b.features?.datapathId).toBe(0xabcn);
      await b.addFlows([SAMPLE_FLOWS[0]!.flow]);
      expect(tcp.ofType(OFPT.BUNDLE_ADD_MESSAGE)).toHaveLength(1);
    } finally {
      await b.stop();
      await tcp.close();
    }
  });

  it('refuses a switch that does not speak OpenFlow 1.5', async () => {
    sw.helloVersions = [4];
    const conn = new OfConnection({ target: { path }, logger, reconnectInitialDelayMs: 10 });
    cleanups.push(() => conn.stop());
    await expect(conn.start()).rejects.toMatchObject({ code: 'OF_VERSION_MISMATCH' });
  });

  it('answers echo requests from the switch with the same xid and payload', async () => {
    const b = bridge();
    await b.start();
    const replies: Buffer[] = [];
    for (const s of sw.connections) {
      s.write(encodeEchoRequest(0x77, Buffer.from('ping')));
    }
    await waitFor(() => {
      replies.splice(0, replies.length, ...sw.ofType(OFPT.ECHO_REPLY));
      return replies.length > 0;
    });
    expect(replies[0]!.toString('hex')).toBe(`0603000c00000077${Buffer.from('ping').toString('hex')}`);
  });

  it('collects multipart replies across OFPMPF_MORE parts', async () => {
    sw.flows = SAMPLE_FLOWS.map((s) => ({ ...s.flow, packetCount: 1n, byteCount: 2n }));
    sw.flowsPerPart = 3;
    const b = bridge();
    await b.start();
    const flows = await b.dumpFlows();
    expect(flows).toHaveLength(SAMPLE_FLOWS.length);
    expect(flows.map((f) => f.match)).toEqual(SAMPLE_FLOWS.map((s) => s.flow.match));
  });

  it('maps switch errors to the message that caused them (by xid), in order', async () => {
    const b = bridge();
    await b.start();
    sw.reject = (m) => (m[1] === OFPT.FLOW_MOD && m.readUInt16BE(8 + 18 + 4) === 666 ? [5, 3] : undefined);
    const { encodeFlowMod } = await import('../codec/flow-mod.js');
    const good = encodeFlowMod(b.conn.nextXid(), { command: 'ADD', priority: 1, match: [], actions: [] });
    const bad = encodeFlowMod(b.conn.nextXid(), { command: 'ADD', priority: 666, match: [], actions: [] });
    const err = await b.transact([good, bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfErrorReply);
    expect(err).toMatchObject({ messageIndex: 1, errName: 'OFPFMFC_OVERLAP', code: 'OF_ERROR_REPLY' });
  });

  it('a rejected bundle add is discarded, never committed', async () => {
    const b = bridge();
    await b.start();
    sw.reject = (m) =>
      m[1] === OFPT.BUNDLE_ADD_MESSAGE && m.readUInt16BE(16 + 8 + 18 + 4) === 2 ? [2, 4] : undefined;
    const flows = [1, 2, 3].map((p) => ({ priority: p, match: buildMatch({ ip: true }), actions: [] }));
    const err = await b.addFlows(flows).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfBundleError);
    expect((err as OfBundleError).errors.map((e) => [e.messageIndex, e.errName])).toEqual([
      [1, 'OFPBAC_BAD_OUT_PORT'],
    ]);
    const controls = sw.ofType(OFPT.BUNDLE_CONTROL).map((m) => m.readUInt16BE(12));
    expect(controls).toEqual([0, 6]); // OPEN, DISCARD — no COMMIT
  });

  it('delivers NXT_PACKET_IN2 as packetIn events', async () => {
    const b = bridge();
    await b.start();
    const got = new Promise((resolve) => b.once('packetIn', resolve));
    for (const s of sw.connections) {
      s.write(
        encodePacketIn2(0, { packet: Buffer.alloc(20, 1), tableId: 9, reason: 'no_match', metadata: [] }),
      );
    }
    expect(await got).toMatchObject({ tableId: 9, reason: 'no_match' });
  });

  it('reconnects with backoff after the connection drops and emits reconnected for replay', async () => {
    const b = bridge();
    await b.start();
    const events: string[] = [];
    b.on('disconnected', () => events.push('disconnected'));
    const reconnected = new Promise<void>((resolve) => b.on('reconnected', () => resolve()));
    sw.dropConnections();
    await reconnected;
    expect(events).toEqual(['disconnected']);
    await b.addFlows([SAMPLE_FLOWS[0]!.flow]);
  });

  it('announces every set-up session with ready, and holds waitReady across a reconnect', async () => {
    const b = bridge();
    const ready: boolean[] = [];
    b.on('ready', (reconnect) => ready.push(reconnect));
    expect(b.ready).toBe(false);
    await b.start();
    expect(b.ready).toBe(true);
    await b.waitReady(10);
    const down = new Promise<void>((resolve) => b.once('disconnected', resolve));
    sw.dropConnections();
    await down;
    expect(b.ready).toBe(false);
    await b.waitReady(3000);
    expect(b.ready).toBe(true);
    // The session is set up again before it is announced: packet-ins stay enabled.
    expect(sw.ofType(OFPT.SET_ASYNC)).toHaveLength(2);
    expect(ready).toEqual([false, true]);
    await b.addFlows([SAMPLE_FLOWS[0]!.flow]);
  });

  it('redials when the switch refuses the session setup after a reconnect, instead of staying unannounced', async () => {
    const b = bridge();
    await b.start();
    const ready: boolean[] = [];
    b.on('ready', (reconnect) => ready.push(reconnect));
    let refusals = 2;
    sw.reject = (m) => (m[1] === OFPT.SET_ASYNC && refusals-- > 0 ? [1, 0] : undefined);
    sw.dropConnections();
    await waitFor(() => ready.length === 1);
    expect(refusals).toBe(-1);
    expect(b.ready).toBe(true);
    expect(ready).toEqual([true]);
    expect(sw.ofType(OFPT.HELLO)).toHaveLength(4);
  });

  it('waitReady times out while the switch is away, and stop() fails waiters with OF_CLOSED', async () => {
    const b = bridge();
    await b.start();
    await sw.close();
    await waitFor(() => !b.ready);
    await expect(b.waitReady(30)).rejects.toMatchObject({ code: 'OF_TIMEOUT' });
    const waiting = expect(b.waitReady(10_000)).rejects.toMatchObject({ code: 'OF_CLOSED' });
    await b.stop();
    await waiting;
  });

  it('sends the adds behind the bundle open, and commits nothing when the open is refused', async () => {
    const b = bridge();
    await b.start();
    const isOpen = (m: Buffer): boolean => m[1] === OFPT.BUNDLE_CONTROL && m.readUInt16BE(12) === 0;
    sw.reject = (m) => (isOpen(m) ? [17, 2] : undefined); // OFPBFC_BAD_ID
    const err = await b.addFlows([SAMPLE_FLOWS[0]!.flow, SAMPLE_FLOWS[1]!.flow]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'OF_ERROR_REPLY', errName: 'OFPBFC_BAD_ID' });
    const sent = sw.received.filter((m) => m[1] === OFPT.BUNDLE_CONTROL || m[1] === OFPT.BUNDLE_ADD_MESSAGE);
    expect(sent.map((m) => m[1])).toEqual([
      OFPT.BUNDLE_CONTROL,
      OFPT.BUNDLE_ADD_MESSAGE,
      OFPT.BUNDLE_ADD_MESSAGE,
    ]);
    // The session is still usable.
    sw.reject = () => undefined;
    await b.addFlows([SAMPLE_FLOWS[0]!.flow]);
  });

  it('declares a silent switch dead after the echo timeout and reconnects', async () => {
    const b = bridge({ echoIntervalMs: 20, echoTimeoutMs: 80 });
    await b.start();
    sw.silent = true;
    const disconnected = new Promise<void>((resolve) => b.once('disconnected', resolve));
    await disconnected;
    sw.silent = false;
    await new Promise<void>((resolve) => b.once('reconnected', resolve));
    expect(sw.ofType(OFPT.ECHO_REQUEST).length).toBeGreaterThan(0);
  });

  it('times out requests, and stop() fails pending ones with OF_CLOSED (idempotently)', async () => {
    const conn = new OfConnection({ target: { path }, logger, requestTimeoutMs: 50 });
    await conn.start();
    sw.ignoreBarriers = true;
    await expect(conn.barrier()).rejects.toMatchObject({ code: 'OF_TIMEOUT' });
    const pending = expect(
      conn.request(Buffer.from('0614000800000999', 'hex'), 10_000),
    ).rejects.toMatchObject({
      code: 'OF_CLOSED',
    });
    await conn.stop();
    await pending;
    await conn.stop();
    expect(() => conn.send(Buffer.alloc(8))).toThrow(expect.objectContaining({ code: 'OF_DISCONNECTED' }));
  });
});
