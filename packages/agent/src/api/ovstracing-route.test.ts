import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import type { PodInterface } from '../cniserver/interface-store.js';
import { type OvsTracingSource, registerOvsTracingRoute, tracingFlow } from './ovstracing-route.js';
import { RouteRefusal } from './route-refusal.js';

const pod = (name: string, ip: string, mac: string): PodInterface =>
  ({
    containerId: `${name}-container`,
    podName: name,
    podNamespace: 'ns1',
    hostIfName: `${name}-a1b2c3`,
    ifName: 'eth0',
    netns: `/var/run/netns/${name}`,
    ipCidr: `${ip}/24`,
    ip,
    mac,
    ofport: 3,
  }) as PodInterface;

const GW_MAC = 'be:ef:00:00:00:01';
const VIRTUAL = 'aa:bb:cc:dd:ee:ff';

function source(traced: string[] = []): OvsTracingSource {
  return {
    pods: () => [
      pod('pod1', '10.10.0.2', '16:00:00:00:00:02'),
      pod('pod2', '10.10.0.3', '16:00:00:00:00:03'),
    ],
    tracingPorts: () => ({
      gateway: { name: 'antrea-gw0', ip: '10.10.0.1', mac: GW_MAC },
      tunnelName: 'antrea-tun0',
    }),
    traceFlow: async (flow) => {
      traced.push(flow);
      return `Flow: ${flow}\nFinal flow: unchanged`;
    },
    cluster: {
      podIp: async (ns, name) => (ns === 'ns2' && name === 'remote' ? '10.10.1.7' : undefined),
      serviceClusterIp: async (ns, name) => (ns === 'ns2' && name === 'svc' ? '10.96.0.10' : undefined),
    },
  };
}

async function rejected(q: Parameters<typeof tracingFlow>[1], src = source()): Promise<RouteRefusal> {
  const err = await tracingFlow(src, q).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RouteRefusal);
  return err as RouteRefusal;
}

describe('tracingFlow', () => {
  it('local Pod to local Pod: in by the source port, both MACs, ip, TTL and addresses', async () => {
    expect(await tracingFlow(source(), { source: 'ns1/pod1', destination: 'ns1/pod2' })).toBe(
      'in_port=pod1-a1b2c3,dl_src=16:00:00:00:00:02,dl_dst=16:00:00:00:00:03,ip,nw_ttl=64,nw_src=10.10.0.2,nw_dst=10.10.0.3',
    );
  });

  it('a Service destination is traced to its ClusterIP through the gateway MAC; the flow names the protocol', async () => {
    expect(
      await tracingFlow(source(), { source: 'ns1/pod1', destination: 'ns2/svc', flow: 'tcp,tcp_dst=80' }),
    ).toBe(
      'in_port=pod1-a1b2c3,dl_src=16:00:00:00:00:02,dl_dst=be:ef:00:00:00:01,tcp,tcp_dst=80,nw_ttl=64,nw_src=10.10.0.2,nw_dst=10.96.0.10',
    );
  });

  it('a remote Pod source enters through the tunnel with the virtual MAC on both sides', async () => {
    expect(await tracingFlow(source(), { source: 'ns2/remote', destination: 'ns1/pod2' })).toBe(
      `in_port=antrea-tun0,dl_src=${VIRTUAL},dl_dst=${VIRTUAL},ip,nw_ttl=64,nw_src=10.10.1.7,nw_dst=10.10.0.3`,
    );
  });

  it('an IP source enters through the gateway; -p picks the port; flow fields override MACs and TTL', async () => {
    expect(await tracingFlow(source(), { source: '192.0.2.9', destination: 'ns1/pod1' })).toBe(
      `in_port=antrea-gw0,dl_src=${GW_MAC},dl_dst=16:00:00:00:00:02,ip,nw_ttl=64,nw_src=192.0.2.9,nw_dst=10.10.0.2`,
    );
    expect(
      await tracingFlow(source(), {
        port: 'antrea-gw0',
        destination: '10.10.1.20',
        flow: 'udp,dl_src=02:00:00:00:00:09,nw_ttl=3',
      }),
    ).toBe(`in_port=antrea-gw0,dl_dst=${GW_MAC},udp,dl_src=02:00:00:00:00:09,nw_ttl=3,nw_dst=10.10.1.20`);
  });

  it('ARP from a local Pod: no addresses added, in_port in the flow allowed without -p', async () => {
    expect(await tracingFlow(source(), { port: 'ns1/pod1', flow: 'arp' })).toBe(
      'in_port=pod1-a1b2c3,dl_src=16:00:00:00:00:02,arp',
    );
    expect(await tracingFlow(source(), { flow: 'in_port=7,arp' })).toBe(`dl_src=${GW_MAC},in_port=7,arp`);
  });

  it('rejects bad requests with the status Antrea gives', async () => {
    expect((await rejected({ flow: 'tcp;reboot' })).status).toBe(400);
    expect((await rejected({ port: '10.0.0.1' })).message).toBe('invalid input port format');
    expect((await rejected({ source: 'a/b/c' })).message).toBe('invalid source format');
    expect((await rejected({ port: 'ns1/pod1', flow: 'in_port=3,ip' })).message).toBe(
      "duplicated 'in_port' in flow",
    );
    expect((await rejected({ source: 'ns1/pod1', flow: 'arp' })).message).toBe(
      'source and destination must not be specified for non-IP packet',
    );
    expect((await rejected({ destination: '10.0.0.9', flow: 'ip,nw_dst=10.0.0.8' })).message).toBe(
      "duplicated 'nw_dst' in flow",
    );
    expect((await rejected({ source: 'fd00::1' })).message).toBe(
      'address family incompatible between source and request',
    );
    expect((await rejected({ port: 'nosuchport' })).status).toBe(404);
    expect((await rejected({ destination: 'ns2/nothing' })).message).toBe(
      'Pod or Service ns2/nothing not found',
    );
    expect((await rejected({ source: 'ns2/svc' })).message).toBe('Pod ns2/svc not found');
    expect((await rejected({ source: 'ns1/pod1', addressFamily: '6' })).message).toBe(
      'pod1-a1b2c3 has no IPv6 address',
    );
  });
});

describe('/ovstracing', () => {
  it("returns OVS's trace as {result}, 4xx with the reason, and OVS's own error when it refuses the flow", async () => {
    const traced: string[] = [];
    const app = Fastify();
    registerOvsTracingRoute(app, source(traced));
    const ok = await app.inject({ url: '/ovstracing?source=ns1/pod1&destination=ns2/svc&flow=tcp' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json<{ result: string }>().result).toContain('nw_dst=10.96.0.10');
    expect(traced).toHaveLength(1);

    const bad = await app.inject({ url: '/ovstracing?destination=ns2/nothing' });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual({ error: 'Pod or Service ns2/nothing not found' });

    const failing = Fastify();
    registerOvsTracingRoute(failing, {
      ...source(),
      traceFlow: async () => {
        throw Object.assign(new Error('ovs-appctl failed'), {
          stderr: 'ovs-vswitchd: unknown field tcp_dts\n',
        });
      },
    });
    const refused = await failing.inject({ url: '/ovstracing?flow=tcp,tcp_dts=1' });
    expect(refused.statusCode).toBe(500);
    expect(refused.json()).toEqual({ error: 'ovs-vswitchd: unknown field tcp_dts' });
    await Promise.all([app.close(), failing.close()]);
  });
});
