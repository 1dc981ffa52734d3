import type { PacketIn2 } from '@antrea-ts/openflow';
import { FakeOpenFlowBridge } from '@antrea-ts/openflow/testing';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { DNS_PACKET_IN_OP } from '../openflow/features/dns-interception.js';
import { LOG_PACKET_IN_OP, REJECT_PACKET_IN_OP } from '../openflow/features/network-policy.js';
import { TRACEFLOW_PACKET_IN_OP } from '../openflow/features/traceflow.js';
import { craftTracePacket, tracePacketSpec } from '../traceflow/packet.js';
import { PacketInHandler } from './packet-in-handler.js';
import { rejectReply } from './reject-packet.js';

const logger = pino({ level: 'silent' });
const syn = craftTracePacket(
  tracePacketSpec(
    0,
    { transportHeader: { tcp: { srcPort: 40000, dstPort: 80 } } },
    { srcMac: '02:00:00:00:00:01', dstMac: '02:00:00:00:00:02', srcIp: '10.10.1.2', dstIp: '10.10.2.3' },
    () => 0,
  ),
);
const packetIn = (op: number, extra: PacketIn2['metadata'] = []): PacketIn2 => ({
  packet: syn,
  metadata: [{ field: 'in_port', value: 7n }, ...extra],
  userdata: Buffer.from([op]),
});
const settle = () => new Promise((r) => setImmediate(r));

function setup(ratePerSecond = 500) {
  const bridge = new FakeOpenFlowBridge();
  let t = 1_000_000;
  const seen = { log: 0, traceflow: 0 };
  const handler = new PacketInHandler({
    bridge,
    logger,
    ratePerSecond,
    now: () => t,
    onLog: () => seen.log++,
    onTraceflow: () => seen.traceflow++,
  });
  handler.start();
  return { bridge, handler, seen, advance: (ms: number) => (t += ms) };
}

describe('PacketInHandler', () => {
  it('answers a rejected packet out of its in_port, through the tunnel it came from', async () => {
    const { bridge, handler } = setup();
    bridge.emit('packetIn', packetIn(REJECT_PACKET_IN_OP));
    bridge.emit(
      'packetIn',
      packetIn(REJECT_PACKET_IN_OP, [
        { field: 'tun_src', value: 0xc6120002n },
        { field: 'tun_id', value: 0n },
      ]),
    );
    await settle();
    expect(handler.rejected).toBe(2);
    const [local, tunneled] = bridge.packetOuts;
    expect(local!.packet).toEqual(rejectReply(syn));
    expect(local!.actions).toEqual([{ type: 'output', port: 7 }]);
    expect(tunneled!.actions).toEqual([
      { type: 'set_field', field: 'tun_dst', value: 0xc6120002n },
      { type: 'set_field', field: 'tun_id', value: 0n },
      { type: 'output', port: 7 },
    ]);
  });

  it('sends at most ratePerSecond replies and audit-log lines, refilling over time', async () => {
    const { bridge, seen, advance } = setup(3);
    for (let i = 0; i < 5; i++) bridge.emit('packetIn', packetIn(REJECT_PACKET_IN_OP | LOG_PACKET_IN_OP));
    await settle();
    expect(bridge.packetOuts).toHaveLength(3);
    expect(seen.log).toBe(3);
    advance(1000);
    for (let i = 0; i < 5; i++) bridge.emit('packetIn', packetIn(REJECT_PACKET_IN_OP));
    await settle();
    expect(bridge.packetOuts).toHaveLength(6);
  });

  it('hands Traceflow packets to the Traceflow agent only, and stops listening on stop()', async () => {
    const { bridge, handler, seen } = setup();
    bridge.emit('packetIn', packetIn(TRACEFLOW_PACKET_IN_OP | REJECT_PACKET_IN_OP));
    await settle();
    expect(seen.traceflow).toBe(1);
    expect(bridge.packetOuts).toHaveLength(0);
    handler.stop();
    bridge.emit('packetIn', packetIn(REJECT_PACKET_IN_OP));
    await settle();
    expect(bridge.packetOuts).toHaveLength(0);
  });

  it('resumes a paused DNS response when onDns allows it (or fails), never rate limited; drops it on false', async () => {
    const bridge = new FakeOpenFlowBridge();
    const resumed: PacketIn2[] = [];
    Object.assign(bridge, {
      resume: vi.fn(async (pi: PacketIn2) => {
        resumed.push(pi);
      }),
    });
    const verdicts: Array<boolean | Error> = [true, false, new Error('agent error'), true, true, true];
    const handler = new PacketInHandler({
      bridge,
      logger,
      ratePerSecond: 1,
      now: () => 0,
      onDns: async () => {
        const v = verdicts.shift()!;
        if (v instanceof Error) throw v;
        return v;
      },
    });
    handler.start();
    const dns = [0, 1, 2, 3, 4, 5].map((i) => ({
      ...packetIn(DNS_PACKET_IN_OP),
      continuation: Buffer.from([i]),
    }));
    for (const pi of dns) bridge.emit('packetIn', pi);
    await settle();
    // Dropped only on false: an error in the agent delivers the answer rather than hold it.
    expect(resumed).toEqual([dns[0], dns[2], dns[3], dns[4], dns[5]]);
    expect(bridge.packetOuts).toHaveLength(0);
    handler.stop();

    // Without onDns (no policy controller) every paused answer is resumed at once; a failed resume
    // (switch gone) is not thrown.
    const bare = new FakeOpenFlowBridge();
    const resume = vi.fn(async () => {
      throw new Error('not connected');
    });
    Object.assign(bare, { resume });
    const plain = new PacketInHandler({ bridge: bare, logger });
    plain.start();
    bare.emit('packetIn', dns[1]!);
    await settle();
    expect(resume).toHaveBeenCalledWith(dns[1]);
    plain.stop();
  });
});
