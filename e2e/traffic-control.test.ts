// TrafficControl end to end on the lab (instance 42: lab42-*, its own state dir): 2 Nodes with the
// real antrea-controller and antrea-agents (featureGates.TrafficControl in their antrea-agent.conf)
// and userspace OVS. A client Pod on Node 2 talks TCP to a server Pod on Node 1 that TrafficControls
// select. Mirror: a veth end in Node 1's namespace is the target device, tcpdump on its peer sees
// both directions while the connections still succeed. Redirect: target and return devices are
// veths whose peers are bridged in a namespace of their own (the simplest forwarder); with the
// bridge down nothing gets through, with it up connections succeed and tcpdump on the forwarder
// sees both directions. Geneve: the Pod's packets reach this process's namespace (the lab's
// underlay host) encapsulated with the VNI. Deleting a TrafficControl removes its ports and flows; an agent restart
// keeps a TrafficControl realized.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TrafficControl, TrafficControlSpec } from '@antrea-ts/apis';
import { ovsRunDirLayout, poll, run, tryRun } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { captureOn } from './traffic-control-capture.js';

const ROOT = join(import.meta.dirname, '..');
const INSTANCE = 42;
const options = e2eLabOptions(INSTANCE);
const N1 = 'lab42-node-1';
const N2 = 'lab42-node-2';
/** The forwarder of the Redirect case: a namespace of this lab's, so Lab.down's leak check sees it. */
const FWD = 'lab42-tcfwd';
const NS = 'tc';
const PORT = 8080;
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

const trafficControl = (name: string, spec: Omit<TrafficControlSpec, 'appliedTo'>): TrafficControl => ({
  apiVersion: 'crd.antrea.io/v1alpha2',
  kind: 'TrafficControl',
  metadata: { name },
  spec: { appliedTo: { podSelector: { matchLabels: { app: 'web' } } }, ...spec },
});

describe.skipIf(!isRoot)('TrafficControl on the lab', () => {
  let lab: Lab;
  let serverIp: string;

  const node1 = () => lab.node(N1).netns;
  const inNode1 = (argv: readonly string[]) => run(argv, { netns: node1() });
  const ports = async () =>
    (
      await run([
        'ovs-vsctl',
        `--db=unix:${ovsRunDirLayout(lab.node(N1).ovsDir).dbSocket}`,
        'list-ports',
        'br-int',
      ])
    )
      .split('\n')
      .filter(Boolean);
  const ofportOf = async (name: string) =>
    Number(
      await run([
        'ovs-vsctl',
        `--db=unix:${ovsRunDirLayout(lab.node(N1).ovsDir).dbSocket}`,
        'get',
        'Interface',
        name,
        'ofport',
      ]),
    );
  /** Node 1's TrafficControl marks (they load reg9) and return-port classifiers (source 6). */
  const tcFlows = async () =>
    (await lab.brIntOfctl(N1, ['--no-stats', 'dump-flows']))
      .split('\n')
      .filter(
        (l) => /->(reg9|NXM_NX_REG9\[\])/.test(l) || /0x6(\/0xf)?->(reg0|NXM_NX_REG0\[0\.\.3\])/.test(l),
      );
  const connect = async () =>
    (
      await lab.probe(
        { namespace: NS, name: 'client' },
        [{ ip: serverIp, port: PORT, protocol: 'TCP' }],
        2_000,
      )
    )[0]!.result;
  const apply = (tc: TrafficControl) => lab.kubectl(['apply', '-f', '-'], { input: JSON.stringify(tc) });
  const veth = async (netns: string, a: string, b: string) => {
    await run(['ip', 'link', 'add', a, 'type', 'veth', 'peer', 'name', b], { netns });
    for (const end of [a, b]) await run(['ip', 'link', 'set', end, 'up'], { netns });
  };
  /** Both directions of the client's connections to the server, as tcpdump printed them. */
  const bothDirections = (seen: string) => ({
    toServer: new RegExp(`> ${serverIp.replaceAll('.', '\\.')}\\.${PORT}:`).test(seen),
    fromServer: new RegExp(`${serverIp.replaceAll('.', '\\.')}\\.${PORT} >`).test(seen),
  });

  beforeAll(async () => {
    await exec('npx', ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'], {
      cwd: ROOT,
    });
    await Lab.down(options);
    await tryRun(['ip', 'netns', 'delete', FWD]);
    lab = await Lab.up({ ...options, nodes: 2 });
    // TrafficControl is off by default (Alpha, as in Antrea): on for Node 1, whose Pod is selected.
    await lab.configureAgent(N1, 'featureGates: {"TrafficControl": true}\n');
    const server = await lab.createPod({
      namespace: NS,
      name: 'server',
      node: N1,
      labels: { app: 'web' },
      ports: [{ port: PORT, protocol: 'TCP' }],
    });
    serverIp = server.ips[0]!;
    await lab.createPod({ namespace: NS, name: 'client', node: N2, labels: { app: 'client' } });
    await poll('client reaches server', async () => (await connect()) === 'allow', { timeoutMs: 60_000 });
  }, 300_000);

  afterAll(async () => {
    await tryRun(['ip', 'netns', 'delete', FWD]);
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('mirrors both directions of the selected Pod to a device on its Node while traffic flows', async () => {
    await veth(node1(), 'tcmirror', 'tcmirror-cap');
    await apply(
      trafficControl('mirror-web', {
        direction: 'Both',
        action: 'Mirror',
        targetPort: { device: { name: 'tcmirror' } },
      }),
    );
    await poll(
      'device attached and marks installed',
      async () => (await ports()).includes('tcmirror') && (await tcFlows()).length === 2,
      { timeoutMs: 60_000 },
    );
    const results: string[] = [];
    const seen = await captureOn(node1(), 'tcmirror-cap', `tcp port ${PORT}`, 6, async () =>
      results.push(await connect()),
    );
    expect(bothDirections(seen)).toEqual({ toServer: true, fromServer: true });
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((r) => r === 'allow')).toBe(true);
  });

  it('keeps the TrafficControl realized across an agent restart', async () => {
    const ofport = await ofportOf('tcmirror');
    const before = await tcFlows();
    await lab.restart(`antrea-agent@${N1}`);
    await poll(
      'marks of the new round',
      async () => {
        const after = await tcFlows();
        return after.length === 2 && after.every((l) => !before.includes(l));
      },
      { timeoutMs: 60_000 },
    );
    expect(await ofportOf('tcmirror')).toBe(ofport);
    const seen = await captureOn(node1(), 'tcmirror-cap', `tcp port ${PORT}`, 6, connect);
    expect(bothDirections(seen)).toEqual({ toServer: true, fromServer: true });
  });

  it('removes the port and the flows of a deleted TrafficControl; traffic goes on', async () => {
    await lab.kubectl(['delete', 'trafficcontrol', 'mirror-web']);
    await poll(
      'device detached, marks gone',
      async () => !(await ports()).includes('tcmirror') && (await tcFlows()).length === 0,
      { timeoutMs: 60_000 },
    );
    expect(await connect()).toBe('allow');
    await inNode1(['ip', 'link', 'delete', 'tcmirror']);
  });

  it('mirrors to a Geneve tunnel: the remote end receives both directions encapsulated with the VNI', async () => {
    const remote = lab.layout.hostIp;
    await apply(
      trafficControl('mirror-geneve', {
        direction: 'Both',
        action: 'Mirror',
        targetPort: { geneve: { remoteIP: remote, vni: 7 } },
      }),
    );
    await poll(
      'tunnel port and marks',
      async () => (await ports()).some((p) => p.startsWith('geneve-')) && (await tcFlows()).length === 2,
      { timeoutMs: 60_000 },
    );
    // This process's namespace holds the remote IP: what reaches it there came through the tunnel.
    const filter = `udp dst port 6081 and src host ${lab.node(N1).nodeIp} and dst host ${remote}`;
    const results: string[] = [];
    const seen = await captureOn(undefined, 'any', filter, 6, async () => results.push(await connect()));
    expect(seen).toContain('vni 0x7');
    expect(bothDirections(seen)).toEqual({ toServer: true, fromServer: true });
    expect(results.every((r) => r === 'allow')).toBe(true);
    await lab.kubectl(['delete', 'trafficcontrol', 'mirror-geneve']);
    await poll(
      'tunnel port gone',
      async () => !(await ports()).some((p) => p.startsWith('geneve-')) && (await tcFlows()).length === 0,
      { timeoutMs: 60_000 },
    );
  });

  it('redirects through a forwarder: no connection while it is down, connections through it when up', async () => {
    await run(['ip', 'netns', 'add', FWD]);
    for (const [end, peer] of [
      ['tcred', 'tcred-fwd'],
      ['tcret', 'tcret-fwd'],
    ] as const) {
      await veth(node1(), end, peer);
      await inNode1(['ip', 'link', 'set', peer, 'netns', FWD]);
    }
    // No learning (ageing 0): the bridge floods every frame to the other port, whatever its MACs.
    const inFwd = (argv: readonly string[]) => run(argv, { netns: FWD });
    await inFwd(['ip', 'link', 'add', 'br0', 'type', 'bridge', 'ageing_time', '0']);
    for (const peer of ['tcred-fwd', 'tcret-fwd']) {
      await inFwd(['ip', 'link', 'set', peer, 'master', 'br0']);
      await inFwd(['ip', 'link', 'set', peer, 'up']);
    }
    await apply(
      trafficControl('redirect-web', {
        direction: 'Both',
        action: 'Redirect',
        targetPort: { device: { name: 'tcred' } },
        returnPort: { device: { name: 'tcret' } },
      }),
    );
    await poll(
      'ports attached, marks and return classifier installed',
      async () => (await tcFlows()).length === 3,
      { timeoutMs: 60_000 },
    );
    expect(await connect()).toBe('drop');
    await inFwd(['ip', 'link', 'set', 'br0', 'up']);
    await poll('client reaches server through the forwarder', async () => (await connect()) === 'allow', {
      timeoutMs: 30_000,
    });
    const seen = await captureOn(FWD, 'tcred-fwd', `tcp port ${PORT}`, 6, connect);
    expect(bothDirections(seen)).toEqual({ toServer: true, fromServer: true });

    await lab.kubectl(['delete', 'trafficcontrol', 'redirect-web']);
    await poll(
      'ports detached, flows gone',
      async () => {
        const left = await ports();
        return !left.includes('tcred') && !left.includes('tcret') && (await tcFlows()).length === 0;
      },
      { timeoutMs: 60_000 },
    );
    await inFwd(['ip', 'link', 'set', 'br0', 'down']);
    expect(await connect()).toBe('allow');
  });
});
