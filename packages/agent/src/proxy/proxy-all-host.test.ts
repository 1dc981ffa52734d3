import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ProxyAllHost } from './proxy-all-host.js';
import type { NodePortKey, ServiceHostState } from './service-host-state.js';

/** Records what would be written to iptables and the routes; fails the next `failures` writes. */
class RecordingHost {
  readonly ports: NodePortKey[][] = [];
  readonly routes: string[][] = [];
  failures = 0;
  readonly iptables = {
    sync: async (_addresses: readonly string[], ports: readonly NodePortKey[]) => {
      if (this.failures-- > 0) throw new Error('iptables-restore failed');
      this.ports.push([...ports]);
    },
  };
  readonly routeTable = {
    sync: async (destinations: Iterable<string>) => {
      this.routes.push([...destinations]);
    },
  };
}

const state = (nodePorts: NodePortKey[], vips: string[]): ServiceHostState => ({ nodePorts, vips });

function setup(serviceCidr?: string) {
  const rec = new RecordingHost();
  const host = new ProxyAllHost({
    iptables: rec.iptables,
    routes: rec.routeTable,
    addresses: ['198.19.0.2'],
    ...(serviceCidr ? { serviceCidr } : {}),
    logger: pino({ level: 'silent' }),
    retryMs: 10,
  });
  return { rec, host };
}

describe('ProxyAllHost', () => {
  it('writes the union of every Service’s NodePorts and VIPs, and skips writes that change nothing', async () => {
    const { rec, host } = setup();
    host.servicesChanged(
      new Map([
        ['ns/a', state([{ protocol: 'tcp', port: 30080 }], ['10.96.0.10', '172.31.0.1'])],
        ['ns/b', state([{ protocol: 'udp', port: 30053 }], ['10.96.0.11'])],
      ]),
    );
    await host.idle();
    expect(rec.ports).toEqual([
      [
        { protocol: 'udp', port: 30053 },
        { protocol: 'tcp', port: 30080 },
      ],
    ]);
    expect(rec.routes).toEqual([['10.96.0.10', '10.96.0.11', '172.31.0.1']]);
    // An endpoint change gives the same host state: nothing is written.
    host.servicesChanged(new Map([['ns/b', state([{ protocol: 'udp', port: 30053 }], ['10.96.0.11'])]]));
    await host.idle();
    expect(rec.ports).toHaveLength(1);
    expect(rec.routes).toHaveLength(1);
    // A Service gone: its NodePort and routes go.
    host.servicesChanged(new Map([['ns/a', undefined]]));
    await host.idle();
    expect(rec.ports.at(-1)).toEqual([{ protocol: 'udp', port: 30053 }]);
    expect(rec.routes.at(-1)).toEqual(['10.96.0.11']);
    await host.stop();
  });

  it('the first sync is written even with no Service (it replaces a previous run’s rules), later empty ones are not', async () => {
    const { rec, host } = setup('10.96.0.0/12');
    host.servicesChanged(new Map());
    await host.idle();
    expect(rec.ports).toEqual([[]]);
    expect(rec.routes).toEqual([['10.96.0.0/12']]);
    host.servicesChanged(new Map());
    await host.idle();
    expect(rec.ports).toHaveLength(1);
    await host.stop();
  });

  it('with serviceCIDR routes the CIDR once and only the VIPs outside it', async () => {
    const { rec, host } = setup('10.96.0.0/12');
    host.servicesChanged(new Map([['ns/a', state([], ['10.96.0.10', '172.31.0.1'])]]));
    await host.idle();
    expect(rec.routes).toEqual([['10.96.0.0/12', '172.31.0.1']]);
    await host.stop();
  });

  it('retries a failed write by itself, with no further event', async () => {
    const { rec, host } = setup();
    rec.failures = 1;
    host.servicesChanged(new Map([['ns/a', state([{ protocol: 'tcp', port: 30080 }], [])]]));
    await host.idle();
    expect(rec.ports).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    await host.idle();
    expect(rec.ports).toEqual([[{ protocol: 'tcp', port: 30080 }]]);
    await host.stop();
  });
});
