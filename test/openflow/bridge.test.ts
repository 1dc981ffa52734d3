import { type OvsInstance, type PodBed, startPodBed } from '@antrea-ts/harness';
import {
  buildMatch,
  type Flow,
  formatFlow,
  isOpenFlowError,
  OFPP,
  OfBundleError,
  OfErrorReply,
  OpenFlowBridge,
  type PacketIn2,
} from '@antrea-ts/openflow';
import { SAMPLE_FLOWS } from '@antrea-ts/openflow/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BR = 'br-of';
const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

async function ofctlDump(ovs: OvsInstance, extra: string[] = []): Promise<string[]> {
  const out = await ovs.ofctl(['-O', 'OpenFlow15', '--no-stats', 'dump-flows', BR, ...extra]);
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('OFPST_FLOW') && !l.startsWith('NXST_FLOW'));
}

function sortLines(lines: string[]): string[] {
  return [...lines].sort();
}

describe('OpenFlowBridge against a real ovs-vswitchd', () => {
  let bed: PodBed;
  let ovs: OvsInstance;
  let bridge: OpenFlowBridge;

  beforeAll(async () => {
    bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow15'], logger });
    ovs = bed.ovs;
    bridge = new OpenFlowBridge({
      target: { path: ovs.bridgeMgmtSocket(BR) },
      logger,
      reconnectMaxDelayMs: 500,
    });
    await bridge.start();
  });

  afterAll(async () => {
    await bridge?.stop();
    await bed?.stop();
  });

  it('negotiated OpenFlow 1.5 and read the datapath id', () => {
    expect(bridge.features?.datapathId).toBeTypeOf('bigint');
    expect(bridge.features?.nTables).toBe(254);
  });

  it('installs every sample flow in one bundle; ovs-ofctl and our flow stats read them back identically', async () => {
    await bridge.deleteFlowsByCookie(0n, 0n);
    await bridge.installGroup({
      type: 'all',
      groupId: 4,
      buckets: [{ bucketId: 0, actions: [{ type: 'output', port: 1 }] }],
    });
    await bridge.addFlows(SAMPLE_FLOWS.map((s) => s.flow));
    const expected = sortLines(SAMPLE_FLOWS.map((s) => s.text));
    expect(sortLines(await ofctlDump(ovs))).toEqual(expected);
    const ours = await bridge.dumpFlows();
    expect(sortLines(ours.map((f) => formatFlow(f)))).toEqual(expected);
    // Structured comparison as well: what we decode equals what we sent.
    for (const s of SAMPLE_FLOWS) {
      const got = ours.find((f) => formatFlow(f) === s.text)!;
      expect(got.match).toEqual(s.flow.match);
      expect(got.actions).toEqual(s.flow.actions);
      expect(got.table ?? 0).toBe(s.flow.table ?? 0);
      expect(got.priority).toBe(s.flow.priority ?? 0x8000);
      expect(got.cookie).toBe(s.flow.cookie ?? 0n);
      expect(got.packetCount).toBe(0n);
      expect(got.durationSec).toBeTypeOf('number');
    }
  });

  it('filters flow stats by table and by cookie/mask', async () => {
    const t10 = await bridge.dumpFlows({ table: 10 });
    expect(t10.map((f) => f.priority).sort()).toEqual([190, 200]);
    const byCookie = await bridge.dumpFlows({ cookie: 0x2000000000000n, cookieMask: 0xffff000000000000n });
    expect(byCookie.map((f) => formatFlow(f))).toEqual([SAMPLE_FLOWS[1]!.text]);
    const stats = await bridge.tableStats();
    expect(stats.find((t) => t.table === 10)?.activeCount).toBe(2);
  });

  it('modifies and deletes flows strictly', async () => {
    const base: Flow = {
      table: 30,
      priority: 100,
      match: buildMatch({ ip: true, nw_dst: '10.1.0.0/16' }),
      actions: [],
    };
    await bridge.addFlows([base]);
    await bridge.modifyFlows([{ ...base, actions: [{ type: 'output', port: 7 }] }]);
    expect(await ofctlDump(ovs, ['table=30'])).toEqual([
      'table=30, priority=100,ip,nw_dst=10.1.0.0/16 actions=output:7',
    ]);
    await bridge.deleteFlows([base]);
    expect(await ofctlDump(ovs, ['table=30'])).toEqual([]);
  });

  it('a bundle with one invalid flow installs nothing and names the bad message (rejected on add)', async () => {
    const before = sortLines(await ofctlDump(ovs));
    const good = (n: number): Flow => ({
      table: 40,
      priority: n,
      match: buildMatch({ ip: true }),
      actions: [],
    });
    // set_field ip_dst needs an IPv4 match: OVS refuses the message as soon as it is added.
    const bad: Flow = {
      table: 40,
      priority: 5,
      match: [],
      actions: [{ type: 'set_field', field: 'nw_dst', value: 1n }],
    };
    const err = await bridge.addFlows([good(1), good(2), bad, good(3)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfBundleError);
    const be = err as OfBundleError;
    expect(be.code).toBe('OF_BUNDLE_FAILED');
    expect(be.errors.map((e) => [e.messageIndex, e.errName])).toEqual([[2, 'OFPBAC_MATCH_INCONSISTENT']]);
    expect(be.message).toContain('message #2');
    expect(sortLines(await ofctlDump(ovs))).toEqual(before);
  });

  it('a bundle whose flow references a missing group fails at commit, installs nothing, names the message', async () => {
    const before = sortLines(await ofctlDump(ovs));
    const good = (n: number): Flow => ({
      table: 40,
      priority: n,
      match: buildMatch({ ip: true }),
      actions: [],
    });
    const bad: Flow = {
      table: 40,
      priority: 5,
      match: buildMatch({ ip: true }),
      actions: [{ type: 'group', groupId: 999 }],
    };
    const err = await bridge.addFlows([good(1), good(2), bad, good(3)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfBundleError);
    const be = err as OfBundleError;
    expect(be.errors[0]).toMatchObject({ messageIndex: 2, errName: 'OFPBAC_BAD_OUT_GROUP' });
    // The commit itself is refused with OFPBFC_MSG_FAILED.
    expect(be.errors.map((e) => e.errName)).toContain('OFPBFC_MSG_FAILED');
    expect(sortLines(await ofctlDump(ovs))).toEqual(before);
  });

  it('a bundle that fails at commit time rolls back everything and names the bad message', async () => {
    const before = sortLines(await ofctlDump(ovs));
    const overlapping: Flow = {
      table: 10,
      priority: 200,
      flags: 2 /* check_overlap */,
      match: buildMatch({ ip: true, nw_src: '10.0.0.0/16' }),
      actions: [],
    };
    const fresh: Flow = { table: 41, priority: 1, match: [], actions: [] };
    const err = await bridge.addFlows([fresh, overlapping]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfBundleError);
    const be = err as OfBundleError;
    expect(be.errors.some((e) => e.messageIndex === 1 && e.errName === 'OFPFMFC_OVERLAP')).toBe(true);
    expect(be.errors.some((e) => e.errName === 'OFPBFC_MSG_FAILED')).toBe(true);
    expect(sortLines(await ofctlDump(ovs))).toEqual(before);
  });

  it('maps errors outside bundles back to the request', async () => {
    const err = await bridge
      .sendPacketOut({
        inPort: OFPP.CONTROLLER,
        actions: [{ type: 'group', groupId: 12345 }],
        packet: Buffer.alloc(60),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfErrorReply);
    expect(isOpenFlowError(err) && err.code).toBe('OF_ERROR_REPLY');
    expect((err as OfErrorReply).errName).toBe('OFPBAC_BAD_OUT_GROUP');
  });

  it('group-mod: select with bucket ids and weights, then modify and delete', async () => {
    await bridge.installGroup({
      type: 'select',
      groupId: 10,
      buckets: [
        {
          bucketId: 0,
          weight: 100,
          actions: [
            { type: 'set_field', field: 'reg3', value: 0x0a000001n },
            { type: 'resubmit', table: 42 },
          ],
        },
        {
          bucketId: 1,
          weight: 50,
          actions: [
            { type: 'set_field', field: 'reg3', value: 0x0a000002n },
            { type: 'resubmit', table: 42 },
          ],
        },
      ],
    });
    await bridge.installGroup({
      type: 'indirect',
      groupId: 11,
      buckets: [{ bucketId: 5, actions: [{ type: 'output', port: 2 }] }],
    });
    let groups = await ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]);
    expect(groups).toContain(
      'group_id=10,type=select,bucket=bucket_id:0,weight:100,actions=set_field:0xa000001->reg3,resubmit(,42),' +
        'bucket=bucket_id:1,weight:50,actions=set_field:0xa000002->reg3,resubmit(,42)',
    );
    expect(groups).toContain('group_id=11,type=indirect,bucket=bucket_id:5,actions=output:2');
    // Installing again replaces it (replay after reconnect is idempotent).
    await bridge.installGroup({
      type: 'select',
      groupId: 10,
      buckets: [{ bucketId: 7, weight: 30, actions: [{ type: 'output', port: 3 }] }],
    });
    groups = await ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]);
    expect(groups).toContain('group_id=10,type=select,bucket=bucket_id:7,weight:30,actions=output:3');
    expect(await bridge.dumpGroups(10)).toEqual([
      {
        groupId: 10,
        type: 'select',
        buckets: [{ bucketId: 7, weight: 30, actions: [{ type: 'output', port: 3 }] }],
      },
    ]);
    const all = await bridge.dumpGroups();
    expect(all.map((g) => g.groupId).sort((a, b) => a - b)).toEqual([4, 10, 11]);
    await bridge.deleteGroup(11);
    groups = await ovs.ofctl(['-O', 'OpenFlow15', 'dump-groups', BR]);
    expect(groups).not.toContain('group_id=11');
  });

  it('meter-mod is accepted and visible in dump-meters', async () => {
    await bridge.installMeter({
      meterId: 256,
      unit: 'pktps',
      burst: true,
      stats: true,
      bands: [{ type: 'drop', rate: 100, burstSize: 200 }],
    });
    await bridge.installMeter({
      meterId: 256,
      unit: 'pktps',
      burst: true,
      stats: true,
      bands: [{ type: 'drop', rate: 300, burstSize: 200 }],
    });
    const meters = await ovs.ofctl(['-O', 'OpenFlow15', 'dump-meters', BR]);
    expect(meters).toContain('meter=256 pktps burst stats bands=');
    expect(meters).toContain('type=drop rate=300 burst_size=200');
    await bridge.deleteMeter(256);
    expect(await ovs.ofctl(['-O', 'OpenFlow15', 'dump-meters', BR])).not.toContain('meter=256');
  });

  it('packet-out through a flow with controller(userdata) comes back as NXT_PACKET_IN2', async () => {
    await bridge.addFlows([
      {
        table: 50,
        priority: 10,
        cookie: 0x77n,
        match: buildMatch({ ip: true }),
        actions: [
          { type: 'set_field', field: 'reg2', value: 0xabcdn },
          { type: 'controller', userdata: Buffer.from([1, 2, 3]), maxLen: 0xffff },
        ],
      },
    ]);
    const packet = ipv4Packet();
    const got = new Promise<PacketIn2>((resolve) => bridge.once('packetIn', resolve));
    await bridge.sendPacketOut({
      inPort: OFPP.CONTROLLER,
      actions: [{ type: 'resubmit', table: 50 }],
      packet,
    });
    const pi = await got;
    expect(pi.packet.equals(packet)).toBe(true);
    expect(pi.tableId).toBe(50);
    expect(pi.cookie).toBe(0x77n);
    expect(pi.reason).toBe('action');
    expect(pi.userdata).toEqual(Buffer.from([1, 2, 3]));
    expect(pi.metadata).toContainEqual({ field: 'reg2', value: 0xabcdn });
    expect(pi.metadata).toContainEqual({ field: 'in_port', value: BigInt(OFPP.CONTROLLER) });
  });

  it('controller(pause) hands over a continuation; resume continues the pipeline after the pause', async () => {
    await bridge.addFlows([
      {
        table: 70,
        priority: 10,
        match: buildMatch({ ip: true }),
        actions: [
          { type: 'set_field', field: 'reg2', value: 1n },
          { type: 'controller', userdata: Buffer.from([1]), pause: true },
          { type: 'set_field', field: 'reg2', value: 2n },
          { type: 'controller', userdata: Buffer.from([2]) },
        ],
      },
    ]);
    const received: PacketIn2[] = [];
    const listener = (pi: PacketIn2): void => {
      received.push(pi);
    };
    bridge.on('packetIn', listener);
    try {
      await bridge.sendPacketOut({
        inPort: OFPP.CONTROLLER,
        actions: [{ type: 'resubmit', table: 70 }],
        packet: ipv4Packet(),
      });
      await waitUntil(() => received.length === 1);
      const paused = received[0]!;
      expect(paused.userdata).toEqual(Buffer.from([1]));
      expect(paused.continuation?.length).toBeGreaterThan(0);
      expect(paused.metadata).toContainEqual({ field: 'reg2', value: 1n });
      await bridge.resume(paused);
      await waitUntil(() => received.length === 2);
      expect(received[1]!.userdata).toEqual(Buffer.from([2]));
      expect(received[1]!.continuation).toBeUndefined();
      expect(received[1]!.metadata).toContainEqual({ field: 'reg2', value: 2n });
    } finally {
      bridge.off('packetIn', listener);
    }
  });

  it('reconnects after ovs-vswitchd restarts and lets the owner replay its flows', async () => {
    const replayed = new Promise<void>((resolve) => {
      bridge.once('reconnected', () => {
        bridge.addFlows([SAMPLE_FLOWS[0]!.flow]).then(resolve, resolve);
      });
    });
    const disconnected = new Promise<void>((resolve) => bridge.once('disconnected', resolve));
    await ovs.restartVswitchd({ crash: true });
    await disconnected;
    await replayed;
    expect(await ofctlDump(ovs)).toEqual([SAMPLE_FLOWS[0]!.text]);
  });
});

async function waitUntil(cond: () => boolean, ms = 5000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error('timed out waiting for condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A minimal Ethernet/IPv4/UDP frame (checksums are not checked by OVS). */
function ipv4Packet(): Buffer {
  const b = Buffer.alloc(60);
  Buffer.from('aabbccddeeff', 'hex').copy(b, 0);
  Buffer.from('001122334455', 'hex').copy(b, 6);
  b.writeUInt16BE(0x0800, 12);
  b[14] = 0x45;
  b.writeUInt16BE(46, 16);
  b[22] = 64;
  b[23] = 17;
  Buffer.from([10, 0, 0, 1, 10, 0, 0, 2]).copy(b, 26);
  b.writeUInt16BE(1000, 34);
  b.writeUInt16BE(2000, 36);
  b.writeUInt16BE(26, 38);
  return b;
}
