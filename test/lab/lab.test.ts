// The lab as `npm run lab -- up` runs it, driven through its programmatic API: real etcd,
// kube-apiserver and kube-controller-manager, the antrea-controller and antrea-agent binaries as
// detached processes (agents inside netns Nodes with userspace OVS), Pods wired through the real CNI
// chain. Instance 7 of the lab names (lab7-*, lb7*, 198.19.7.0/24), so a developer's lab can run
// at the same time.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { run } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STATE_DIR = '/var/run/antrea-ts-lab-test-7';
const options = e2eLabOptions(7, { owner: 'test' });

let lab: Lab;

/** Probes until the verdict is `want` or the deadline passes; returns the last verdict. */
async function eventually(
  from: { namespace: string; name: string },
  to: { namespace: string; name: string },
  port: number,
  want: string,
  timeoutMs = 30_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ip = lab.pod(to.namespace, to.name).ips[0]!;
    const [r] = await lab.probe(from, [{ ip, port, protocol: 'TCP' }], 1_000);
    if (r!.result === want || Date.now() > deadline) return r!.result;
    await new Promise((res) => setTimeout(res, 500));
  }
}

async function leftovers(): Promise<string[]> {
  const found: string[] = [];
  const netns = await run(['ip', 'netns', 'list']);
  for (const line of netns.split('\n')) if (line.startsWith('lab7-')) found.push(`netns ${line}`);
  const links = await run(['ip', '-o', 'link', 'show']);
  for (const line of links.split('\n')) {
    const name = (line.split(': ')[1] ?? '').split('@')[0] ?? '';
    if (name.startsWith('lb7')) found.push(`link ${name}`);
  }
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    const cmdline = await run(['cat', `/proc/${pid}/cmdline`]).catch(() => '');
    if (cmdline.includes(`${STATE_DIR}/`) && Number(pid) !== process.pid) found.push(`process ${pid}`);
  }
  if (existsSync(STATE_DIR)) found.push(`dir ${STATE_DIR}`);
  return found;
}

describe('lab', () => {
  beforeAll(async () => {
    await promisify(execFile)(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'],
      { cwd: ROOT },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    await Promise.all([
      lab.createPod({
        namespace: 'x',
        name: 'a',
        node: 'lab7-node-1',
        labels: { app: 'a' },
        ports: [{ port: 80, protocol: 'TCP' }],
      }),
      lab.createPod({
        namespace: 'x',
        name: 'b',
        node: 'lab7-node-1',
        labels: { app: 'b' },
        ports: [
          { port: 80, protocol: 'TCP' },
          { port: 53, protocol: 'UDP' },
        ],
      }),
      lab.createPod({
        namespace: 'x',
        name: 'c',
        node: 'lab7-node-2',
        labels: { app: 'c' },
        ports: [{ port: 80, protocol: 'TCP' }],
      }),
    ]);
    // The binaries' build and Lab.up take minutes under full-suite load: the 180 s hook default is tight.
  }, 600_000);

  afterAll(async () => {
    await Lab.down(options);
  });

  it('runs every component healthy, from the state dir', async () => {
    const status = await Lab.attach(options).status();
    expect(status.phase).toBe('up');
    expect(status.components.filter((c) => !c.running)).toEqual([]);
    expect(status.nodes.map((n) => [n.name, n.agentReady])).toEqual([
      ['lab7-node-1', true],
      ['lab7-node-2', true],
    ]);
    expect(status.controller?.apiServiceAvailable).toBe(true);
    expect(status.components.map((c) => c.log).every((l) => l.startsWith(join(STATE_DIR, 'logs')))).toBe(
      true,
    );
    // NodeIPAM of the controller gave each Node its own /24 of the cluster CIDR.
    const cidrs = status.nodes.map((n) => n.podCidr);
    expect(new Set(cidrs).size).toBe(2);
    for (const c of cidrs) expect(c).toMatch(/^10\.244\.\d+\.0\/24$/);
  });

  it('writes the CNI result into the Pod object as kubelet would', async () => {
    const pod = await lab.core().readNamespacedPod({ namespace: 'x', name: 'c' });
    expect(pod.spec?.nodeName).toBe('lab7-node-2');
    expect(pod.status?.phase).toBe('Running');
    expect(pod.status?.podIP).toBe(lab.pod('x', 'c').ips[0]);
    expect(pod.status?.podIP).toMatch(/^10\.244\./);
    const node = lab.node('lab7-node-2');
    expect(pod.status?.podIP?.split('.').slice(0, 3).join('.')).toBe(
      node.podCidr!.split('.').slice(0, 3).join('.'),
    );
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('connects Pods on one Node and across Nodes (TCP and UDP), and refuses closed ports', async () => {
    const b = lab.pod('x', 'b').ips[0]!;
    const c = lab.pod('x', 'c').ips[0]!;
    const results = await lab.probe({ namespace: 'x', name: 'a' }, [
      { ip: b, port: 80, protocol: 'TCP' },
      { ip: b, port: 53, protocol: 'UDP' },
      { ip: c, port: 80, protocol: 'TCP' },
      { ip: c, port: 81, protocol: 'TCP' },
    ]);
    expect(results.map((r) => r.result)).toEqual(['allow', 'allow', 'allow', 'reject']);
  });

  it('reaches outside the cluster: the host on the underlay, through the gateway and SNAT', async () => {
    const host = lab.state.underlay.hostIp;
    const server = lab.state.apiserver!.server;
    const port = Number(new URL(server).port);
    const [r] = await lab.probe({ namespace: 'x', name: 'c' }, [{ ip: host, port, protocol: 'TCP' }]);
    expect(r!.result).toBe('allow');
  });

  it('runs commands in the Pod netns', async () => {
    const out = await lab.exec('x', 'a', ['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0']);
    expect(out).toContain(`${lab.pod('x', 'a').ips[0]}/24`);
  });

  it('enforces a K8s NetworkPolicy: denies, then allows when the policy admits the source', async () => {
    const np = (ingress: unknown[]) =>
      JSON.stringify({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'c-ingress', namespace: 'x' },
        spec: { podSelector: { matchLabels: { app: 'c' } }, policyTypes: ['Ingress'], ingress },
      });
    await lab.kubectl(['apply', '-f', '-'], { input: np([]) });
    const denied = await eventually({ namespace: 'x', name: 'a' }, { namespace: 'x', name: 'c' }, 80, 'drop');
    expect(denied).toBe('drop');
    await lab.kubectl(['apply', '-f', '-'], {
      input: np([{ from: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ port: 80 }] }]),
    });
    expect(await eventually({ namespace: 'x', name: 'a' }, { namespace: 'x', name: 'c' }, 80, 'allow')).toBe(
      'allow',
    );
    // b is still outside the allowed sources.
    expect(await eventually({ namespace: 'x', name: 'b' }, { namespace: 'x', name: 'c' }, 80, 'drop')).toBe(
      'drop',
    );
    await lab.kubectl(['delete', 'networkpolicy', '-n', 'x', 'c-ingress']);
  });

  it('adds a Node that Pods reach through the tunnel, and removes it with its Pods', async () => {
    const n = await lab.addNode();
    expect(n.name).toBe('lab7-node-3');
    const d = await lab.createPod({
      namespace: 'x',
      name: 'd',
      node: n.name,
      ports: [{ port: 80, protocol: 'TCP' }],
    });
    expect(await eventually({ namespace: 'x', name: 'a' }, { namespace: 'x', name: 'd' }, 80, 'allow')).toBe(
      'allow',
    );
    await lab.removeNode(n.name);
    expect(lab.state.nodes.map((x) => x.name)).toEqual(['lab7-node-1', 'lab7-node-2']);
    expect(lab.state.pods.find((p) => p.name === 'd')).toBeUndefined();
    expect((await run(['ip', 'netns', 'list'])).includes(n.netns)).toBe(false);
    expect(d.ips[0]).toBeDefined();
    await expect(lab.core().readNode({ name: n.name })).rejects.toMatchObject({ code: 404 });
  });

  it('deletes a Pod: CNI DEL releases its IP, its netns and object are gone', async () => {
    const b = lab.pod('x', 'b');
    const ipamDir = join(STATE_DIR, 'nodes', 'lab7-node-1', 'ipam');
    const allocated = () => readdirSync(ipamDir, { recursive: true }).map(String);
    expect(allocated().some((f) => f.endsWith(b.ips[0]!))).toBe(true);
    await lab.deletePod('x', 'b');
    expect(allocated().some((f) => f.endsWith(b.ips[0]!))).toBe(false);
    expect((await run(['ip', 'netns', 'list'])).includes(b.netns)).toBe(false);
    await expect(lab.core().readNamespacedPod({ namespace: 'x', name: 'b' })).rejects.toMatchObject({
      code: 404,
    });
    // The name is free again.
    await lab.createPod({
      namespace: 'x',
      name: 'b',
      node: 'lab7-node-2',
      ports: [{ port: 80, protocol: 'TCP' }],
    });
    const [r] = await lab.probe({ namespace: 'x', name: 'a' }, [
      { ip: lab.pod('x', 'b').ips[0]!, port: 80, protocol: 'TCP' },
    ]);
    expect(r!.result).toBe('allow');
  });

  it('restarts components and Pods stay connected (controller crash, agent, ovs-vswitchd crash)', async () => {
    const before = lab.state.processes.find((p) => p.name === 'antrea-agent@lab7-node-1')!.pid;
    await lab.restart('antrea-controller', { crash: true });
    await lab.restart('antrea-agent@lab7-node-1');
    await lab.restart('ovs-vswitchd@lab7-node-2', { crash: true });
    expect(lab.state.processes.find((p) => p.name === 'antrea-agent@lab7-node-1')!.pid).not.toBe(before);
    expect(await eventually({ namespace: 'x', name: 'a' }, { namespace: 'x', name: 'c' }, 80, 'allow')).toBe(
      'allow',
    );
    await expect(lab.restart('pod-server@x/a')).rejects.toMatchObject({ code: 'LAB_NOT_FOUND' });
  });

  it('comes down completely, even after a crash, and a second down is harmless', async () => {
    // A crash: the apiserver and one agent die without cleanup.
    const state = lab.state;
    for (const name of ['kube-apiserver', 'antrea-agent@lab7-node-1']) {
      process.kill(state.processes.find((p) => p.name === name)!.pid, 'SIGKILL');
    }
    const report = await Lab.down(options);
    expect(report.stopped.length).toBeGreaterThan(0);
    expect(await leftovers()).toEqual([]);
    await Lab.down(options);
    expect(await leftovers()).toEqual([]);
  });
});
