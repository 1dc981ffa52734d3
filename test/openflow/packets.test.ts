import { type PodBed, startPodBed } from '@antrea-ts/harness';
import { buildMatch, type Flow, OFPP, OpenFlowBridge } from '@antrea-ts/openflow';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Real packets through flows our client installed: a conjunctive-match policy and ct commit/nat on a
// netdev bridge between netns Pods, allowing and blocking TCP as the flows say.
const BR = 'br-pk';
const ZONE = 65520;
const logger = pino({ level: 'silent' });
const SERVER_IP = '10.20.0.3';
const PODS = [
  { name: 'a', ip: '10.20.0.1', ofport: 1 },
  { name: 'b', ip: '10.20.0.2', ofport: 2 },
  { name: 's', ip: SERVER_IP, ofport: 3 },
] as const;

const ct = (extra: Record<string, unknown>) =>
  ({ type: 'ct', zone: ZONE, ...extra }) as Flow['actions'][number];
const normal = { type: 'output', port: OFPP.NORMAL } as Flow['actions'][number];

function flows(): Flow[] {
  return [
    { table: 0, priority: 300, match: buildMatch({ arp: true }), actions: [normal] },
    // Every IP packet goes through conntrack (un-NATting replies) before the policy table.
    { table: 0, priority: 100, match: buildMatch({ ip: true }), actions: [ct({ table: 1, nat: {} })] },
    // Established and related traffic skips the policy, as in Antrea's pipeline.
    { table: 1, priority: 400, match: buildMatch({ ip: true, ct_state: '-new+trk' }), actions: [normal] },
    // Port 80 on the server is a DNAT to 8080 (what a Service would do).
    {
      table: 1,
      priority: 300,
      match: buildMatch({ tcp: true, ct_state: '+new+trk', nw_dst: SERVER_IP, tcp_dst: 80 }),
      actions: [
        ct({
          commit: true,
          nat: { kind: 'dst', addrMin: SERVER_IP, addrMax: SERVER_IP, portMin: 8080, portMax: 8080 },
        }),
        normal,
      ],
    },
    // Policy "a may open TCP 8080 on s" as a conjunction: one clause per dimension, one action flow.
    {
      table: 1,
      priority: 200,
      cookie: 0x11n,
      match: buildMatch({ ip: true, ct_state: '+new+trk', nw_src: PODS[0].ip }),
      actions: [{ type: 'conjunction', id: 11, clause: 1, nClauses: 2 }],
    },
    {
      table: 1,
      priority: 200,
      match: buildMatch({ tcp: true, ct_state: '+new+trk', nw_dst: SERVER_IP, tcp_dst: 8080 }),
      actions: [{ type: 'conjunction', id: 11, clause: 2, nClauses: 2 }],
    },
    {
      table: 1,
      priority: 200,
      cookie: 0x12n,
      match: buildMatch({ ip: true, conj_id: 11 }),
      actions: [ct({ commit: true }), normal],
    },
    // Isolation: anything else new towards the server is dropped; other new traffic is allowed.
    {
      table: 1,
      priority: 100,
      match: buildMatch({ ip: true, ct_state: '+new+trk', nw_dst: SERVER_IP }),
      actions: [],
    },
    {
      table: 1,
      priority: 50,
      match: buildMatch({ ip: true, ct_state: '+new+trk' }),
      actions: [ct({ commit: true }), normal],
    },
  ];
}

describe('flows from our OpenFlow client carry and block real packets', () => {
  let bed: PodBed;
  let bridge: OpenFlowBridge;

  const connect = (from: string, port: number) =>
    bed.pods
      .get(from)!
      .netns.exec(['socat', '-T', '2', '-', `TCP:${SERVER_IP}:${port},connect-timeout=2`], {
        input: '',
        timeoutMs: 5_000,
      })
      .then(
        (out) => out.trim(),
        () => 'blocked',
      );

  beforeAll(async () => {
    bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow15'], pods: PODS, logger });
    bed.runIn(bed.pods.get('s')!, 'server', ['socat', 'TCP-LISTEN:8080,fork,reuseaddr', 'SYSTEM:echo hello']);
    bridge = new OpenFlowBridge({ target: { path: bed.ovs.bridgeMgmtSocket(BR) }, logger });
    await bridge.start();
    await bridge.addFlows(flows());
  });

  afterAll(async () => {
    await bridge?.stop();
    await bed?.stop();
  });

  it('lets the conjunction allow a to reach s and drops b', async () => {
    expect(await connect('a', 8080)).toBe('hello');
    expect(await connect('b', 8080)).toBe('blocked');
    const [actionFlow] = await bridge.dumpFlows({ table: 1, cookie: 0x12n, cookieMask: 0xffn });
    expect(actionFlow?.packetCount).toBeGreaterThan(0n);
  });

  it('DNATs through ct(commit,nat) and un-NATs the replies', async () => {
    expect(await connect('b', 80)).toBe('hello');
  });

  it('blocks new connections once a clause of the conjunction is gone', async () => {
    await bridge.deleteFlows([flows().find((f) => f.cookie === 0x11n)!]);
    expect(await connect('a', 8080)).toBe('blocked');
  });
});
