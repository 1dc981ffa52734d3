import { FlowEndReason } from '@antrea-ts/ipfix';
import { describe, expect, it } from 'vitest';
import { ConnectionStore } from './connection-store.js';
import { parseConntrackDump } from './conntrack-dump.js';
import { conntrackLine, fixedMetadata } from './testing.js';

const metadata = fixedMetadata(
  { '10.10.0.2': 'default/client', '10.10.0.3': 'default/web' },
  { '10.96.0.10:80': 'default/web:http' },
  { 7: { policy: 'allow-web', namespace: 'default', type: 3, rule: 'ingress-0' } },
);
const store = () =>
  new ConnectionStore({
    activeTimeoutMs: 5000,
    idleTimeoutMs: 15_000,
    staleTimeoutMs: 60_000,
    metadata,
    serviceMarkBit: 0x10,
  });
const dump = (...lines: string[]) => parseConntrackDump(lines.join('\n'), 65520);
const web = (o: Partial<Parameters<typeof conntrackLine>[0]> = {}) =>
  conntrackLine({ src: '10.10.0.2', dst: '10.10.0.3', sport: 40000, dport: 8080, packets: [10, 8], ...o });

describe('ConnectionStore', () => {
  it('fills Pods, the Service before DNAT and the allowing rule from ct_label', () => {
    const s = store();
    s.update(
      dump(
        conntrackLine({
          src: '10.10.0.2',
          dst: '10.96.0.10',
          sport: 40001,
          dport: 80,
          endpoint: '10.10.0.3',
          endpointPort: 8080,
          mark: 0x13, // ConnSource Pod (3) + Service (bit 4)
          labels: 7n, // ingress rule conj id 7, no egress rule
        }),
      ),
      0,
    );
    const [f] = s.expire(5000, 10);
    expect(f!.conn).toMatchObject({
      srcIp: '10.10.0.2',
      dstIp: '10.10.0.3',
      dstPort: 8080,
      origDstIp: '10.96.0.10',
      origDstPort: 80,
      srcPod: { namespace: 'default', name: 'client' },
      dstPod: { namespace: 'default', name: 'web' },
      servicePortName: 'default/web:http',
      ingressRule: { policyName: 'allow-web', policyType: 3, ruleName: 'ingress-0', action: 1 },
      egressRule: undefined,
    });
  });

  it('ignores connections of no local Pod, and Service names without the Service mark', () => {
    const s = store();
    s.update(dump(conntrackLine({ src: '10.20.0.2', dst: '10.20.0.3', sport: 1, dport: 2 })), 0);
    expect(s.size).toBe(0);
    s.update(
      dump(
        conntrackLine({ src: '10.10.0.2', dst: '10.96.0.10', sport: 2, dport: 80, endpoint: '10.10.0.3' }),
      ),
      0,
    );
    expect(s.get([...['6/65520/10.10.0.2/2/10.10.0.3/80']][0]!)?.servicePortName).toBe('');
  });

  it('exports active connections every active timeout with the deltas since the last record', () => {
    const s = store();
    s.update(dump(web()), 0);
    expect(s.expire(4999, 10)).toEqual([]);
    const first = s.expire(5000, 10);
    expect(first.map((f) => [f.endReason, f.conn.origPackets - f.conn.prevPackets])).toEqual([
      [FlowEndReason.activeTimeout, 10],
    ]);
    s.update(dump(web({ packets: [25, 20] })), 6000);
    const [second] = s.expire(10_000, 10);
    expect(second!.endReason).toBe(FlowEndReason.activeTimeout);
    expect(second!.conn.origPackets - second!.conn.prevPackets).toBe(15);
    expect(second!.conn.replyPackets - second!.conn.prevReplyPackets).toBe(12);
  });

  it('an idle connection is exported once more with the idle reason, then leaves the queue', () => {
    const s = store();
    s.update(dump(web()), 0);
    s.expire(5000, 10);
    // Unchanged counters and state from here on: no activity since the record at 5 s.
    for (let t = 6000; t <= 30_000; t += 1000) s.update(dump(web()), t);
    expect(s.expire(9999, 10)).toEqual([]);
    const idle = s.expire(10_000, 10);
    expect(idle.map((f) => f.endReason)).toEqual([FlowEndReason.idleTimeout]);
    expect(s.expire(60_000, 10)).toEqual([]);
    expect(s.nextDueMs()).toBeUndefined();
    expect(s.size).toBe(1); // still in conntrack
    // Traffic again: back in the queue.
    s.update(dump(web({ packets: [11, 8] })), 61_000);
    expect(s.expire(66_000, 10).map((f) => f.endReason)).toEqual([FlowEndReason.activeTimeout]);
  });

  it('a closed connection gets an end-of-flow record, then is dropped', () => {
    const s = store();
    s.update(dump(web()), 0);
    s.expire(5000, 10);
    s.update(dump(web({ state: 'TIME_WAIT', packets: [12, 10] })), 6000);
    const [end] = s.expire(11_000, 10);
    expect(end!.endReason).toBe(FlowEndReason.endOfFlow);
    expect(end!.conn.tcpState).toBe('TIME_WAIT');
    expect(s.expire(100_000, 10)).toEqual([]);
    s.update(dump(), 12_000);
    s.update(dump(), 13_000);
    expect(s.size).toBe(0);
  });

  it('a connection gone from conntrack while queued ends with end-of-flow; a stale one is dropped', () => {
    const s = store();
    s.update(dump(web(), web({ sport: 40002 })), 0);
    s.update(dump(), 1000); // both gone
    const ends = s.expire(5000, 10);
    expect(ends.map((f) => f.endReason)).toEqual([FlowEndReason.endOfFlow, FlowEndReason.endOfFlow]);
    s.update(dump(), 6000);
    expect(s.size).toBe(0);
  });

  it('connections gone from conntrack and never exported (collector down) are dropped once stale', () => {
    const s = store();
    s.update(dump(web(), web({ sport: 40002 })), 0);
    s.update(dump(), 1000); // both gone; nothing is exported from here on
    s.update(dump(), 59_999);
    expect(s.size).toBe(2);
    s.update(dump(), 60_000); // staleTimeoutMs after their last export (their start)
    expect(s.size).toBe(0);
    expect(s.nextDueMs()).toBeUndefined();
  });

  it('a poll applied in slices after its sweep is the same as one update', () => {
    const whole = store();
    const sliced = store();
    const first = dump(web({ sport: 1 }), web({ sport: 2 }), web({ sport: 3 }));
    whole.update(first, 0);
    sliced.update(first, 0);
    // The next poll: 1 gone, 2 with news, 4 new; applied to `sliced` in two parts.
    const next = dump(web({ sport: 2, packets: [20, 20] }), web({ sport: 3 }), web({ sport: 4 }));
    whole.update(next, 1000);
    sliced.sweep(1000);
    sliced.apply(next.slice(0, 1), 1000);
    sliced.apply(next.slice(1), 1000);
    const state = (s: ConnectionStore) =>
      [1, 2, 3, 4].map((p) => {
        const c = s.get(`6/65520/10.10.0.2/${p}/10.10.0.3/8080`);
        return c && { present: c.isPresent, packets: c.origPackets };
      });
    expect(state(sliced)).toEqual(state(whole));
    expect(state(sliced)).toEqual([
      { present: false, packets: 10 },
      { present: true, packets: 20 },
      { present: true, packets: 10 },
      { present: true, packets: 10 },
    ]);
    expect(sliced.expire(10_000, 10).map((f) => [f.conn.srcPort, f.endReason])).toEqual(
      whole.expire(10_000, 10).map((f) => [f.conn.srcPort, f.endReason]),
    );
  });

  it('pops in deadline order and at most `max` at a time', () => {
    const s = store();
    s.update(dump(web({ sport: 1 })), 0);
    s.update(dump(web({ sport: 1 }), web({ sport: 2 })), 100);
    s.update(dump(web({ sport: 1 }), web({ sport: 2 }), web({ sport: 3 })), 200);
    expect(s.expire(10_000, 2).map((f) => f.conn.srcPort)).toEqual([1, 2]);
    expect(s.expire(10_000, 2).map((f) => f.conn.srcPort)).toEqual([3]);
  });

  it('keeps only the protocols of protocolFilter', () => {
    const s = new ConnectionStore({
      activeTimeoutMs: 5000,
      idleTimeoutMs: 15_000,
      staleTimeoutMs: 60_000,
      metadata,
      serviceMarkBit: 0x10,
      protocols: [17],
    });
    s.update(dump(web(), web({ proto: 'udp', sport: 5000 })), 0);
    expect(s.expire(5000, 10).map((f) => f.conn.protocol)).toEqual([17]);
  });
});
