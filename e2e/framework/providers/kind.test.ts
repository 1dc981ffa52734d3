// The kind provider against a fake kubectl on PATH (testing/fake-kubectl.mjs): the real process
// boundary, recorded calls and replayed outputs. What kind itself does with those calls is not
// tested here (no Docker); e2e/README.md says so.
import { readFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { allChecks } from '../../suites/all.js';
import { missingCapabilities } from '../../suites/check.js';
import { connectivityChecks } from '../../suites/connectivity.js';
import { PROBE_TOOL, SERVE_TOOL } from '../agent-tools.js';
import { KindProvider, kubectlCommand } from './kind.js';
import { FakeKubectl } from './testing/fake-kubectl.js';

const fake = new FakeKubectl();
afterAll(() => fake.remove());
beforeEach(() => fake.clearCalls());

const provider = (opts: ConstructorParameters<typeof KindProvider>[1] = {}) =>
  new KindProvider(kubectlCommand({ context: 'kind-e2e', env: fake.env }), {
    sleep: async () => undefined,
    settleMs: 0,
    ...opts,
  });

const podList = (...pods: { name: string; uid: string; ready: boolean; deleting?: boolean }[]) =>
  JSON.stringify({
    items: pods.map((p) => ({
      metadata: { name: p.name, uid: p.uid, ...(p.deleting ? { deletionTimestamp: 'now' } : {}) },
      status: { conditions: [{ type: 'Ready', status: p.ready ? 'True' : 'False' }] },
    })),
  });

describe('KindProvider over a fake kubectl', () => {
  it('creates a Pod running serve.mjs from its command line, waits for Ready, reads its IPs', async () => {
    fake.reply([{ match: '^--context kind-e2e get pod a -n x ', stdout: '10.244.1.5 fd00::5' }]);
    const got = await provider({ podImage: 'img:1' }).createPod({
      namespace: 'x',
      name: 'a',
      labels: { app: 'a' },
      node: 'kind-worker',
      ports: [{ port: 80, protocol: 'TCP' }],
    });
    expect(got).toEqual({ ips: ['10.244.1.5', 'fd00::5'] });
    const calls = fake.calls();
    expect(calls.map((c) => c.args.slice(2, 4))).toEqual([
      ['create', '-f'],
      ['wait', '-n'],
      ['get', 'pod'],
    ]);
    expect(calls[1]!.args).toEqual([
      '--context',
      'kind-e2e',
      'wait',
      '-n',
      'x',
      'pod/a',
      '--for=condition=Ready',
      '--timeout=180s',
    ]);
    const pod = JSON.parse(calls[0]!.stdin!);
    expect(pod.metadata).toEqual({ name: 'a', namespace: 'x', labels: { app: 'a' } });
    expect(pod.spec.nodeName).toBe('kind-worker');
    const c = pod.spec.containers[0];
    expect(c.image).toBe('img:1');
    expect(c.command).toEqual([
      'node',
      '--input-type=module',
      '-e',
      readFileSync(SERVE_TOOL, 'utf8'),
      'serve.mjs',
      '--id',
      'x/a',
      '--tcp',
      '80',
      '--udp',
      '80',
    ]);
    expect(c.readinessProbe).toEqual({ tcpSocket: { port: 80 }, periodSeconds: 1 });
  });

  it('probes with probe.mjs on the stdin of kubectl exec -i, targets by the IPs it recorded', async () => {
    const p = provider();
    fake.reply([
      { match: 'get pod a ', stdout: '10.244.1.5' },
      { match: 'get pod b ', stdout: '10.244.2.7' },
      { match: '^--context kind-e2e exec -i -n x a -c serve -- node --input-type=module -', probe: 'drop' },
    ]);
    for (const name of ['a', 'b'])
      await p.createPod({ namespace: 'x', name, labels: {}, ports: [{ port: 80, protocol: 'TCP' }] });
    fake.clearCalls();
    const out = await p.probeMany(
      { namespace: 'x', name: 'a' },
      [
        { to: { namespace: 'x', name: 'b' }, port: 80, protocol: 'TCP' },
        { to: { namespace: 'x', name: 'b' }, port: 81, protocol: 'UDP' },
        { to: { namespace: 'x', name: 'b' }, port: 82, protocol: 'SCTP' },
      ],
      1500,
    );
    expect(out).toEqual(['drop', 'drop', 'error']);
    const [call] = fake.calls();
    expect(call!.args.slice(2)).toEqual([
      'exec',
      '-i',
      '-n',
      'x',
      'a',
      '-c',
      'serve',
      '--',
      'node',
      '--input-type=module',
      '-',
      '--timeout-ms',
      '1500',
      'tcp:10.244.2.7:80',
      'udp:10.244.2.7:81',
    ]);
    expect(call!.stdin).toBe(readFileSync(PROBE_TOOL, 'utf8'));
  });

  it('fails with E2E_PROBE_TOOL when the probe prints something else, E2E_PROVIDER when kubectl fails', async () => {
    const p = provider();
    fake.reply([
      { match: 'get pod', stdout: '10.244.1.5' },
      { match: 'exec -i -n x a ', stdout: 'no\n' },
      { match: 'exec -i -n x b ', exit: 1, stderr: 'error: unable to upgrade connection' },
    ]);
    for (const name of ['a', 'b'])
      await p.createPod({ namespace: 'x', name, labels: {}, ports: [{ port: 80, protocol: 'TCP' }] });
    const t = [{ to: { namespace: 'x', name: 'b' }, port: 80, protocol: 'TCP' as const }];
    await expect(p.probeMany({ namespace: 'x', name: 'a' }, t, 500)).rejects.toMatchObject({
      code: 'E2E_PROBE_TOOL',
    });
    await expect(p.probeMany({ namespace: 'x', name: 'b' }, t, 500)).rejects.toMatchObject({
      code: 'E2E_PROVIDER',
      message: expect.stringContaining('unable to upgrade connection'),
    });
  });

  it('runs antctl inside the controller Deployment and inside the agent Pod of the Node', async () => {
    fake.reply([
      {
        match:
          'get pods -n kube-system -l component=antrea-agent --field-selector spec.nodeName=kind-worker2',
        stdout: podList({ name: 'antrea-agent-q2', uid: 'u', ready: true }),
      },
      { match: 'exec -n kube-system deploy/antrea-controller', stdout: 'controllerVersion: v0.1.0\n' },
      { match: 'exec -n kube-system antrea-agent-q2 -c antrea-agent -- antctl get agentinfo', stdout: '{}' },
    ]);
    const p = provider();
    expect(await p.antctl(['version'], { mode: 'controller' })).toBe('controllerVersion: v0.1.0\n');
    expect(await p.antctl(['get', 'agentinfo', '-o', 'json'], { mode: 'agent', node: 'kind-worker2' })).toBe(
      '{}',
    );
    expect(fake.calls().map((c) => c.args.slice(2).join(' '))).toEqual([
      'exec -n kube-system deploy/antrea-controller -c antrea-controller -- antctl version',
      'get pods -n kube-system -l component=antrea-agent --field-selector spec.nodeName=kind-worker2 -o json',
      'exec -n kube-system antrea-agent-q2 -c antrea-agent -- antctl get agentinfo -o json',
    ]);
  });

  it('restarts an agent: deletes its Pod, waits for a Ready successor (not the old one terminating)', async () => {
    const sel =
      'get pods -n kube-system -l component=antrea-agent --field-selector spec.nodeName=kind-worker';
    fake.reply([
      { match: sel, times: 1, stdout: podList({ name: 'antrea-agent-a', uid: 'old', ready: true }) },
      {
        match: sel,
        times: 1,
        stdout: podList({ name: 'antrea-agent-a', uid: 'old', ready: true, deleting: true }),
      },
      { match: sel, times: 1, stdout: podList({ name: 'antrea-agent-b', uid: 'new', ready: false }) },
      { match: sel, stdout: podList({ name: 'antrea-agent-b', uid: 'new', ready: true }) },
    ]);
    await provider().restartComponent('antrea-agent@kind-worker', { crash: true });
    const verbs = fake.calls().map((c) => c.args.slice(2, 4).join(' '));
    expect(verbs).toEqual(['get pods', 'delete pod', 'get pods', 'get pods', 'get pods']);
    expect(fake.calls()[1]!.args.slice(2)).toEqual([
      'delete',
      'pod',
      '-n',
      'kube-system',
      'antrea-agent-a',
      '--wait=false',
      '--grace-period=0',
      '--force',
    ]);
  });

  it('restarts the controller and waits for its APIService; gives up with E2E_PROVIDER', async () => {
    const sel = 'get pods -n kube-system -l component=antrea-controller';
    fake.reply([
      { match: sel, times: 1, stdout: podList({ name: 'c-1', uid: 'old', ready: true }) },
      { match: sel, stdout: podList({ name: 'c-2', uid: 'new', ready: true }) },
      { match: 'get apiservice v1beta2.controlplane.antrea.io', times: 2, stdout: 'False' },
      { match: 'get apiservice v1beta2.controlplane.antrea.io', stdout: 'True' },
    ]);
    await provider().restartComponent('antrea-controller');
    expect(fake.calls().filter((c) => c.args.includes('apiservice'))).toHaveLength(3);
    expect(fake.calls()[1]!.args.slice(2)).toEqual([
      'delete',
      'pod',
      '-n',
      'kube-system',
      'c-1',
      '--wait=false',
    ]);

    fake.reply([{ match: sel, stdout: podList({ name: 'c-1', uid: 'old', ready: true }) }]);
    await expect(
      provider({ restartTimeoutMs: 0 }).restartComponent('antrea-controller'),
    ).rejects.toMatchObject({
      code: 'E2E_PROVIDER',
      message: expect.stringContaining('a Ready antrea-controller Pod after c-1'),
    });
  });

  it('crashes ovs-vswitchd in the antrea-ovs container and waits for a new pid that answers', async () => {
    const ovs = 'exec -n kube-system antrea-agent-a -c antrea-ovs -- ';
    fake.reply([
      {
        match: 'get pods -n kube-system',
        stdout: podList({ name: 'antrea-agent-a', uid: 'u', ready: true }),
      },
      { match: `${ovs}cat`, times: 1, stdout: '100\n' },
      { match: `${ovs}cat`, times: 1, stdout: '100\n' },
      { match: `${ovs}cat`, stdout: '104\n' },
    ]);
    await provider().restartComponent('ovs-vswitchd@kind-worker', { crash: true });
    const execs = fake
      .calls()
      .filter((c) => c.args.includes('antrea-ovs'))
      .map((c) => c.args.slice(c.args.indexOf('--') + 1).join(' '));
    expect(execs).toEqual([
      'cat /var/run/openvswitch/ovs-vswitchd.pid',
      'kill -9 100',
      'cat /var/run/openvswitch/ovs-vswitchd.pid',
      'ovs-appctl -t ovs-vswitchd version',
      'cat /var/run/openvswitch/ovs-vswitchd.pid',
      'ovs-appctl -t ovs-vswitchd version',
    ]);
  });

  it('lists Nodes, finds the external endpoint on the control-plane Node, lacks Node add/remove', async () => {
    fake.reply([
      { match: 'get nodes -o jsonpath', stdout: 'kind-control-plane kind-worker kind-worker2' },
      { match: 'get nodes -l node-role.kubernetes.io/control-plane', stdout: '172.18.0.2' },
    ]);
    const p = provider();
    expect(await p.listNodes()).toEqual(['kind-control-plane', 'kind-worker', 'kind-worker2']);
    expect(await p.externalEndpoint()).toMatchObject({ ip: '172.18.0.2', port: 6443, protocol: 'TCP' });
    const skipped = allChecks().filter((c) => missingCapabilities(p, c).length > 0);
    expect(skipped.map((c) => [c.suite, missingCapabilities(p, c)])).toEqual([
      ['nodes', ['addNode', 'removeNode']],
    ]);
  });

  it('runs the connectivity check end to end through kubectl calls', async () => {
    fake.reply([
      { match: 'get nodes -o jsonpath', stdout: 'kind-worker kind-worker2' },
      { match: 'get pod a ', stdout: '10.244.1.2' },
      { match: 'get pod b ', stdout: '10.244.1.3' },
      { match: 'get pod c ', stdout: '10.244.2.2' },
      { match: 'tcp:10.244.2.2:81', probe: 'reject' },
      { match: 'exec -i', probe: 'allow' },
    ]);
    await connectivityChecks[0]!.run({ provider: provider(), log: () => undefined });
    const lines = fake.calls().map((c) => c.args.slice(2).join(' '));
    const ns = /^apply/.test(lines[1]!) ? JSON.parse(fake.calls()[1]!.stdin!).metadata.name : undefined;
    expect(ns).toMatch(/^e2e-conn-[0-9a-f]{6}$/);
    expect(lines.filter((l) => l.startsWith('create -f -'))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('exec -i'))).toHaveLength(3);
    expect(lines.at(-2)).toBe(`delete namespace ${ns} --ignore-not-found --wait=false`);
  });
});

describe('kubectlCommand', () => {
  it('puts --kubeconfig and --context before the arguments and passes stdin through', async () => {
    fake.reply([{ match: 'get ns', stdout: 'ns/default' }]);
    const kubectl = kubectlCommand({ kubeconfig: '/tmp/lab.kubeconfig', context: 'ctx', env: fake.env });
    expect(await kubectl(['get', 'ns'])).toBe('ns/default');
    await kubectl(['apply', '-f', '-'], { input: '{"kind":"Namespace"}' });
    expect(fake.calls()).toEqual([
      { args: ['--kubeconfig', '/tmp/lab.kubeconfig', '--context', 'ctx', 'get', 'ns'] },
      {
        args: ['--kubeconfig', '/tmp/lab.kubeconfig', '--context', 'ctx', 'apply', '-f', '-'],
        stdin: '{"kind":"Namespace"}',
      },
    ]);
  });
});
