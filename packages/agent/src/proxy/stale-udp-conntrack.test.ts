import { describe, expect, it } from 'vitest';
import { flushConntrackArgs, ovsStaleUdpConntrack, staleUdpFlows } from './stale-udp-conntrack.js';

describe('stale UDP conntrack', () => {
  const e1 = { ip: '10.10.0.7', port: 5353 };
  const e2 = { ip: '10.10.0.8', port: 5353 };
  const at = (vip: string, port = 53) => ({ vip, port });
  const before = { targets: [at('10.96.0.53'), at('172.31.0.1')], endpoints: [e1, e2] };

  it('lost endpoints on kept targets, whole targets that went, everything when the port goes', () => {
    expect(staleUdpFlows(before, { ...before, endpoints: [e1] })).toEqual([
      { vip: '10.96.0.53', port: 53, endpoint: e2 },
      { vip: '172.31.0.1', port: 53, endpoint: e2 },
    ]);
    expect(staleUdpFlows(before, { ...before, targets: [at('10.96.0.53')] })).toEqual([
      { vip: '172.31.0.1', port: 53 },
    ]);
    // The service port changed: the old port's connections go, on every address.
    expect(
      staleUdpFlows(before, { ...before, targets: [at('10.96.0.53', 54), at('172.31.0.1', 54)] }),
    ).toEqual([
      { vip: '10.96.0.53', port: 53 },
      { vip: '172.31.0.1', port: 53 },
    ]);
    expect(staleUdpFlows(before, undefined)).toHaveLength(2);
    expect(staleUdpFlows(before, before)).toEqual([]);
  });

  it('deletes with the pre-NAT original tuple in the Service zone and the endpoint as reply source', async () => {
    expect(flushConntrackArgs({ vip: '10.96.0.53', port: 53, endpoint: e1 }, 65520)).toEqual([
      'dpctl/flush-conntrack',
      'zone=65520',
      'ct_nw_dst=10.96.0.53,ct_nw_proto=17,ct_tp_dst=53',
      'ct_nw_src=10.10.0.7,ct_tp_src=5353',
    ]);
    const calls: string[][] = [];
    await ovsStaleUdpConntrack(async (args) => {
      calls.push([...args]);
      return '';
    }, 65520).flush([{ vip: '10.96.0.53', port: 53 }]);
    expect(calls).toEqual([
      ['dpctl/flush-conntrack', 'zone=65520', 'ct_nw_dst=10.96.0.53,ct_nw_proto=17,ct_tp_dst=53'],
    ]);
  });
});
