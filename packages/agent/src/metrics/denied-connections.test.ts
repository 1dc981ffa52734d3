import type { PacketIn2 } from '@antrea-ts/openflow';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CookieAllocator, CookieCategory } from '../openflow/cookie.js';
import { DNS_PACKET_IN_OP } from '../openflow/features/dns-interception.js';
import { LOG_PACKET_IN_OP, REJECT_PACKET_IN_OP } from '../openflow/features/network-policy.js';
import { craftTracePacket, IPPROTO } from '../traceflow/packet.js';
import { DeniedConnections } from './denied-connections.js';

const cookies = new CookieAllocator(3);
const DROP_RULE = 11;
const ALLOW_RULE = 12;

function tcp(srcPort: number, dstIp = '10.10.0.5'): Buffer {
  return craftTracePacket({
    tag: 0,
    srcMac: '02:00:00:00:00:01',
    dstMac: '02:00:00:00:00:02',
    srcIp: '10.10.0.4',
    dstIp,
    protocol: IPPROTO.TCP,
    ttl: 64,
    ipFlags: 2,
    srcPort,
    dstPort: 80,
    tcpFlags: 2,
    icmpId: 0,
    icmpSequence: 0,
  });
}

function packetIn(packet: Buffer, op: number, category: CookieCategory, conjId: number): PacketIn2 {
  return {
    packet,
    cookie: cookies.cookie(category, BigInt(conjId)),
    metadata: [],
    userdata: Buffer.from([op]),
  };
}

function setup() {
  let t = 1_000_000;
  const registry = new Registry();
  const denied = new DeniedConnections({
    registry,
    deniesByConjId: (id) => id === DROP_RULE,
    idleTimeoutMs: 15_000,
    maxTracked: 3,
    now: () => t,
  });
  const gauge = async () =>
    (await registry.getSingleMetric('antrea_agent_denied_connection_count')!.get()).values[0]!.value;
  return { denied, gauge, advance: (ms: number) => (t += ms) };
}

describe('DeniedConnections', () => {
  it('counts each dropped or rejected connection once, and only NetworkPolicy denials', async () => {
    const { denied, gauge } = setup();
    const NP = CookieCategory.NetworkPolicy;
    denied.observe(packetIn(tcp(40000), LOG_PACKET_IN_OP, NP, DROP_RULE)); // logged Drop
    denied.observe(packetIn(tcp(40000), LOG_PACKET_IN_OP, NP, DROP_RULE)); // same connection again
    denied.observe(packetIn(tcp(40001), REJECT_PACKET_IN_OP, NP, 99)); // Reject: always a denial
    denied.observe(packetIn(tcp(40002), LOG_PACKET_IN_OP, NP, ALLOW_RULE)); // logged Allow
    denied.observe(packetIn(tcp(40003), REJECT_PACKET_IN_OP, CookieCategory.Service, 0)); // Service without endpoints
    denied.observe(packetIn(tcp(40004), REJECT_PACKET_IN_OP, CookieCategory.Traceflow, 0)); // Traceflow
    denied.observe(packetIn(tcp(40005), DNS_PACKET_IN_OP, NP, 0)); // a paused DNS answer
    expect(await gauge()).toBe(2);
  });

  it('forgets connections idle for the timeout, and tracks at most maxTracked', async () => {
    const { denied, gauge, advance } = setup();
    const NP = CookieCategory.NetworkPolicy;
    for (const port of [1, 2, 3, 4]) denied.observe(packetIn(tcp(port), REJECT_PACKET_IN_OP, NP, 1));
    expect(await gauge()).toBe(3); // the fourth found no room
    advance(10_000);
    denied.observe(packetIn(tcp(1), REJECT_PACKET_IN_OP, NP, 1)); // seen again: stays
    advance(6_000);
    expect(await gauge()).toBe(1);
    denied.observe(packetIn(tcp(4), REJECT_PACKET_IN_OP, NP, 1));
    expect(await gauge()).toBe(2);
  });

  it('makes room when full by forgetting the idle connections, the ones seen again kept', async () => {
    const { denied, gauge, advance } = setup();
    const NP = CookieCategory.NetworkPolicy;
    denied.observe(packetIn(tcp(1), REJECT_PACKET_IN_OP, NP, 1));
    denied.observe(packetIn(tcp(2), REJECT_PACKET_IN_OP, NP, 1));
    advance(10_000);
    denied.observe(packetIn(tcp(3), REJECT_PACKET_IN_OP, NP, 1));
    denied.observe(packetIn(tcp(1), REJECT_PACKET_IN_OP, NP, 1)); // seen again: now the newest
    advance(6_000); // 2 is idle, 1 and 3 are not
    denied.observe(packetIn(tcp(4), REJECT_PACKET_IN_OP, NP, 1)); // full: 2 goes, 4 comes in
    denied.observe(packetIn(tcp(5), REJECT_PACKET_IN_OP, NP, 1)); // full, nothing idle: not counted
    expect(await gauge()).toBe(3);
    advance(10_000); // 1 and 3 are idle now, 4 is not
    expect(await gauge()).toBe(1);
  });
});
