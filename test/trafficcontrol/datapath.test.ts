// TrafficControl on real ovs-vswitchd (userspace, private netns): the agent's TrafficControl
// controller creates and attaches its ports through OVSDB and installs the TrafficControl table's
// flows; Pod a's packets to and from Pod b are mirrored to an OVS internal port (a tap) and to a
// veth, and redirected through a veth whose two ends are the target and the return port (a wire:
// what leaves on one end comes back on the other), each seen with tcpdump on the target.
import {
  CookieAllocator,
  DEFAULT_FEATURES,
  ExecCommandRunner,
  FlowCache,
  gatewayFlows,
  MemoryTrafficControlSource,
  OfConnection,
  Pipeline,
  type PodInterface,
  pipelineFlows,
  podFlows,
  portNoFlood,
  TrafficControlController,
} from '@antrea-ts/agent';
import type { TrafficControl, TrafficControlSpec } from '@antrea-ts/apis';
import { type PodBed, run, startPodBed, waitFor } from '@antrea-ts/harness';
import { OvsBridgeClient, OvsdbRpcClient } from '@antrea-ts/ovsdb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureOn } from '../../e2e/traffic-control-capture.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const BR = 'br-int';
const GW = { ofport: 32769, mac: '02:00:0a:0a:01:01', ip: '10.10.1.1' };
const PODS = [
  { name: 'a', ofport: 5, mac: '02:00:0a:0a:01:05', ip: '10.10.1.5' },
  { name: 'b', ofport: 6, mac: '02:00:0a:0a:01:06', ip: '10.10.1.6' },
] as const;
const NS = 'tc';

const tc = (name: string, spec: Omit<TrafficControlSpec, 'appliedTo'>): TrafficControl => ({
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'TrafficControl',
  metadata: { name },
  spec: { appliedTo: { podSelector: { matchLabels: { app: 'a' } } }, ...spec },
});

describe('TrafficControl datapath on real ovs-vswitchd', () => {
  let bed: PodBed;
  let ovsdb: OvsdbRpcClient;
  let conn: OfConnection;
  let controller: TrafficControlController;
  const source = new MemoryTrafficControlSource((namespace) => ({
    'kubernetes.io/metadata.name': namespace,
  }));
  const set = (...trafficControls: TrafficControl[]) => source.set({ trafficControls });
  const ctx = {
    pipeline: new Pipeline(new Set([...DEFAULT_FEATURES, 'trafficControl'])),
    cookies: new CookieAllocator(1),
  };
  const vsctl = async (args: readonly string[]) => (await bed.ovs.vsctl(args)).trim();
  const inOvsNetns = (argv: readonly string[]) => run(argv, { netns: bed.ovs.netns });
  /** ping from a to b; the summary says how many came back (0 included: ping's exit code is ignored). */
  const ping = (count = 3) =>
    bed.pods.get('a')!.netns.exec(['sh', '-c', `ping -c ${count} -i 0.2 -W 2 ${PODS[1].ip}; true`]);
  const flowsOfTable = async (table: string) =>
    (
      await bed.ovs.ofctl([
        '-O',
        'OpenFlow15',
        'dump-flows',
        '--no-stats',
        BR,
        `table=${ctx.pipeline.id(table as 'Output')}`,
      ])
    )
      .split('\n')
      .filter((l) => l.includes('priority=') && !l.includes('priority=0 '));
  const ports = async () => (await vsctl(['list-ports', BR])).split('\n').filter(Boolean);
  /** A veth pair in the OVS netns, both ends up. */
  const veth = async (a: string, b: string) => {
    await inOvsNetns(['ip', 'link', 'add', a, 'type', 'veth', 'peer', 'name', b]);
    for (const end of [a, b]) await inOvsNetns(['ip', 'link', 'set', end, 'up']);
  };

  beforeAll(async () => {
    bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow10', 'OpenFlow15'], pods: PODS, logger });
    await bed.addPort('gw0', ['type=internal', `ofport_request=${GW.ofport}`]);
    conn = new OfConnection({ socketPath: bed.ovs.bridgeMgmtSocket(BR), logger });
    conn.start();
    await conn.waitConnected(10_000);
    const flows = new FlowCache(conn, logger);
    await flows.replaceMany([
      ['pipeline', pipelineFlows(ctx)],
      ['gateway', gatewayFlows(ctx, GW)],
      ...PODS.map((p): [string, ReturnType<typeof podFlows>] => [`pod/${p.name}`, podFlows(ctx, p, GW.mac)]),
    ]);
    ovsdb = new OvsdbRpcClient({ endpoint: `unix:${bed.ovs.dbSocket}`, logger });
    await ovsdb.start();
    const interfaces: PodInterface[] = PODS.map((p) => ({
      ...p,
      containerId: p.name,
      podName: p.name,
      podNamespace: NS,
      hostIfName: bed.pods.get(p.name)!.hostPort,
      ifName: 'eth0',
      netns: '',
      ipCidr: `${p.ip}/24`,
    }));
    controller = new TrafficControlController({
      source,
      bridges: new OvsBridgeClient(ovsdb, { logger }),
      bridgeName: BR,
      flows,
      ctx,
      pods: () => interfaces,
      setLinkUp: async (name) => void (await inOvsNetns(['ip', 'link', 'set', name, 'up'])),
      setNoFlood: portNoFlood(new ExecCommandRunner(), BR, bed.ovs.runDir),
      logger,
    });
    await controller.start();
    source.set({
      pods: PODS.map((p) => ({ namespace: NS, name: p.name, labels: { app: p.name }, hostNetwork: false })),
    });
    bed.runIn(bed.pods.get('b')!, 'server', ['socat', 'TCP-LISTEN:8080,fork,reuseaddr', 'SYSTEM:echo hello']);
    await waitFor('b answers a before any TrafficControl', async () =>
      (await ping(1)).includes('1 received'),
    );
  }, 60_000);

  afterAll(async () => {
    await controller?.stop();
    await conn?.stop();
    await ovsdb?.stop();
    await bed?.stop();
  });

  it('mirrors both directions of Pod a to an OVS internal port it creates, traffic unchanged', async () => {
    set(
      tc('mirror-tap', {
        direction: 'Both',
        action: 'Mirror',
        targetPort: { ovsInternal: { name: 'tcmirror0' } },
      }),
    );
    await waitFor(
      'tap port and mark flows',
      async () => (await flowsOfTable('TrafficControl')).length >= 3,
      20_000,
    );
    expect(await vsctl(['get', 'Interface', 'tcmirror0', 'type'])).toBe('internal');
    // As Antrea: br-int's ARP floods (NORMAL) stay off TrafficControl ports.
    const show = await bed.ovs.ofctl(['show', BR]);
    expect(show.slice(show.indexOf('(tcmirror0)')).split('\n').slice(0, 3).join('\n')).toContain('NO_FLOOD');
    const seen = await captureOn(bed.ovs.netns, 'tcmirror0', 'icmp', 2, () => ping(1));
    expect(seen).toMatch(new RegExp(`${PODS[0].ip} > ${PODS[1].ip}: ICMP echo request`));
    expect(seen).toMatch(new RegExp(`${PODS[1].ip} > ${PODS[0].ip}: ICMP echo reply`));
    expect(await ping(3)).toContain('3 received');
  });

  it('mirrors only what Pod a sends with direction Egress, to a Node device it attaches', async () => {
    await veth('tcdev0', 'tcdev0p');
    set(
      tc('mirror-dev', { direction: 'Egress', action: 'Mirror', targetPort: { device: { name: 'tcdev0' } } }),
    );
    await waitFor(
      'device attached',
      async () => (await ports()).includes('tcdev0') && !(await ports()).includes('tcmirror0'),
      20_000,
    );
    const seen = await captureOn(bed.ovs.netns, 'tcdev0p', 'icmp', 2, () => ping(2));
    expect(seen).toMatch(/ICMP echo request/);
    expect(seen).not.toMatch(/ICMP echo reply/);
    expect(await ping(2)).toContain('2 received');
  });

  it('redirects through a target and a return port: nothing passes without the wire, all with it', async () => {
    await veth('tcred0', 'tcret0');
    await inOvsNetns(['ip', 'link', 'set', 'tcret0', 'down']);
    set(
      tc('redirect', {
        direction: 'Both',
        action: 'Redirect',
        targetPort: { device: { name: 'tcred0' } },
        returnPort: { device: { name: 'tcret0' } },
      }),
    );
    await waitFor(
      'return classifier',
      async () => (await flowsOfTable('Classifier')).some((l) => l.includes('reg0') && l.includes('0x6')),
      20_000,
    );
    // The wire cut: redirected packets leave and never come back.
    expect(await ping(2)).toContain('0 received');
    await inOvsNetns(['ip', 'link', 'set', 'tcret0', 'up']);
    await waitFor(
      'a reaches b through the redirect',
      async () => (await ping(1)).includes('1 received'),
      20_000,
    );
    const seen = await captureOn(bed.ovs.netns, 'tcred0', 'tcp port 8080', 4, () =>
      bed.pods.get('a')!.netns.exec(['socat', '-T', '2', '-', `TCP:${PODS[1].ip}:8080`], { input: '' }),
    );
    expect(seen).toMatch(new RegExp(`${PODS[0].ip}\\.\\d+ > ${PODS[1].ip}\\.8080`));
    expect(seen).toMatch(new RegExp(`${PODS[1].ip}\\.8080 > ${PODS[0].ip}\\.\\d+`));
    const answer = await bed.pods
      .get('a')!
      .netns.exec(['socat', '-T', '2', '-', `TCP:${PODS[1].ip}:8080`], { input: '' });
    expect(answer).toContain('hello');
  });

  it('removes the marks, the return classifier and its ports when the TrafficControls go', async () => {
    set();
    await waitFor('ports detached', async () => !(await ports()).some((p) => p.startsWith('tc')), 20_000);
    expect(await flowsOfTable('TrafficControl')).toHaveLength(1); // the returned packets' shortcut
    expect((await flowsOfTable('Classifier')).some((l) => l.includes('0x6/0xf'))).toBe(false);
    expect(await ping(2)).toContain('2 received');
  });

  it('creates Geneve tunnel ports with their remote, port and VNI', async () => {
    set(
      tc('mirror-geneve', {
        direction: 'Both',
        action: 'Mirror',
        targetPort: { geneve: { remoteIP: '192.0.2.50', vni: 7, destinationPort: 6090 } },
      }),
    );
    await waitFor('geneve port', async () => (await ports()).some((p) => p.startsWith('geneve-')), 20_000);
    const name = (await ports()).find((p) => p.startsWith('geneve-'))!;
    expect(await vsctl(['get', 'Interface', name, 'type'])).toBe('geneve');
    expect(await vsctl(['get', 'Interface', name, 'options'])).toBe(
      '{dst_port="6090", key="7", remote_ip="192.0.2.50"}',
    );
    expect(Number(await vsctl(['get', 'Interface', name, 'ofport']))).toBeGreaterThan(0);
    set();
    await waitFor(
      'geneve port gone',
      async () => !(await ports()).some((p) => p.startsWith('geneve-')),
      20_000,
    );
  });
});
