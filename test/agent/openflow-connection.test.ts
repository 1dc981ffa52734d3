import {
  CookieAllocator,
  craftTracePacket,
  DEFAULT_FEATURES,
  FlowCache,
  OfConnection,
  Pipeline,
  pipelineFlows,
  tracePacketSpec,
} from '@antrea-ts/agent';
import {
  createNetns,
  type Netns,
  netdevBridgeArgs,
  type OvsInstance,
  startOvs,
  uniqueTag,
  waitFor,
} from '@antrea-ts/harness';
import { buildMatch, formatFlow, OFPP, type PacketIn2 } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

/** dump-flows lines without the stats, in our formatter's spelling. */
async function dump(ovs: OvsInstance): Promise<string[]> {
  const out = await ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', '--no-stats', 'br-int']);
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('OFPST'));
}

describe('OpenFlow connection and flow cache against real ovs-vswitchd', () => {
  let netns: Netns;
  let ovs: OvsInstance;
  let conn: OfConnection;
  const ctx = { pipeline: new Pipeline(DEFAULT_FEATURES), cookies: new CookieAllocator(3) };

  beforeAll(async () => {
    // One userspace datapath per namespace: ours gets its own.
    netns = await createNetns(`ats-${uniqueTag()}-of`);
    ovs = await startOvs({ netns: netns.name, logger });
    await ovs.vsctl(netdevBridgeArgs('br-int', ['protocols=OpenFlow10,OpenFlow15', 'fail_mode=secure']));
    conn = new OfConnection({ socketPath: ovs.bridgeMgmtSocket('br-int'), logger });
    conn.start();
    await conn.waitConnected(10_000);
  });

  afterAll(async () => {
    await conn?.stop();
    await ovs?.stop();
    await netns?.delete();
  });

  it('installs the pipeline in one bundle and reads it back identically', async () => {
    const cache = new FlowCache(conn, logger);
    await cache.replace('pipeline', pipelineFlows(ctx));
    const want = pipelineFlows(ctx)
      .map((f) => formatFlow(f))
      .sort();
    expect((await dump(ovs)).sort()).toEqual(want);
    const dumped = await conn.dumpFlows();
    expect(dumped.map((f) => formatFlow(f)).sort()).toEqual(want);
  });

  it('applies only the difference and removes an owner', async () => {
    const cache = new FlowCache(conn, logger);
    const a = pipelineFlows(ctx).slice(0, 3);
    await cache.replace('x', a);
    await cache.replace('x', a.slice(1));
    const lines = await dump(ovs);
    expect(lines).not.toContain(formatFlow(a[0]!));
    expect(lines).toContain(formatFlow(a[1]!));
    await cache.remove('x');
    expect(await dump(ovs)).not.toContain(formatFlow(a[1]!));
  });

  it('rejects a bundle the switch refuses, and applies none of it', async () => {
    const cache = new FlowCache(conn, logger);
    const before = await dump(ovs);
    const good = pipelineFlows(ctx)[25]!;
    // goto_table backwards is refused by OVS.
    const bad = { ...good, table: 20, actions: [{ type: 'goto_table' as const, table: 1 }] };
    await expect(cache.replace('bad', [{ ...good, priority: 12345 }, bad])).rejects.toMatchObject({
      code: 'AGENT_OPENFLOW_FAILED',
    });
    expect(await dump(ovs)).toEqual(before);
    expect(cache.has('bad')).toBe(false);
  });

  it('holds a bundle issued while ovs-vswitchd is down until it is back', async () => {
    const cache = new FlowCache(conn, logger);
    const flow = { ...pipelineFlows(ctx)[25]!, priority: 4321 };
    const stopped = ovs.restartVswitchd({ crash: true });
    await waitFor('disconnect', async () => !conn.connected, 10_000, 5);
    const pending = cache.replace('during-restart', [flow]);
    await stopped;
    await pending;
    await waitFor('flow present', async () => (await dump(ovs)).includes(formatFlow(flow)), 30_000);
  });

  it('reconnects after ovs-vswitchd restarts and replays every flow', async () => {
    const cache = new FlowCache(conn, logger);
    await cache.replace('pipeline', pipelineFlows(ctx));
    let generations = 0;
    conn.onConnected(() => {
      generations++;
      void cache.replay();
    });
    await ovs.restartVswitchd({ crash: true });
    const want = pipelineFlows(ctx)
      .map((f) => formatFlow(f))
      .sort();
    await waitFor(
      'flows replayed',
      async () => JSON.stringify((await dump(ovs)).sort()) === JSON.stringify(want),
      20_000,
    );
    expect(generations).toBeGreaterThanOrEqual(1);
  });

  it('carries packet-out, packet-in and per-cookie flow stats on the one session, after a restart too', async () => {
    // A fresh ovs-vswitchd must get the session setup again (packet-in format, async config).
    await ovs.restartVswitchd({ crash: true });
    await waitFor('reconnected', async () => conn.connected, 20_000, 5);
    const cookie = 0x0e00_0000_0000_0001n;
    await conn.bundle([
      {
        command: 'ADD',
        table: 250,
        priority: 10,
        cookie,
        match: buildMatch({ ip: true }),
        actions: [{ type: 'controller', userdata: Buffer.from([7]), maxLen: 0xffff }],
      },
    ]);
    const ends = {
      srcMac: '02:00:00:00:00:01',
      dstMac: '02:00:00:00:00:02',
      srcIp: '10.9.0.1',
      dstIp: '10.9.0.2',
    };
    const packet = craftTracePacket(tracePacketSpec(1, undefined, ends, Math.random));
    const got = new Promise<PacketIn2>((resolve) => conn.bridge.once('packetIn', resolve));
    await conn.bridge.sendPacketOut({
      inPort: OFPP.CONTROLLER,
      actions: [{ type: 'resubmit', table: 250 }],
      packet,
    });
    const pi = await got;
    expect(pi.packet.equals(packet)).toBe(true);
    expect(pi.cookie).toBe(cookie);
    expect(pi.userdata).toEqual(Buffer.from([7]));
    const stats = await conn.dumpFlows({ cookie, cookieMask: 0xffff_ffff_ffff_ffffn });
    expect(stats.map((f) => [f.table, f.packetCount])).toEqual([[250, 1n]]);
  });
});
