// toServices egress rules on the lab (instance 27: lab27-*, lb27*, its own state dir): a 2-Node lab
// with the real antrea-controller, antrea-agents and userspace OVS (AntreaProxy, no kube-proxy). A
// client Pod on Node 1 is under an ACNP whose egress rules are "Allow toServices svc-a (and
// svc-late, which does not exist yet)", then "Drop" everything else (Antrea's documented pattern).
// svc-a has an endpoint on each Node; svc-b is another Service. Real TCP connections show what the
// policy lets through, the Drop rule's counter shows it was the policy that dropped the rest.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Traceflow } from '@antrea-ts/apis';
import { poll, run } from '@antrea-ts/harness';
import { Lab, type ProbeVerdict } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEgressPolicy } from './fqdn/cluster-policy.js';
import { e2eLabOptions } from './framework/lab-options.js';
import { settle } from './framework/settle.js';

const ROOT = join(import.meta.dirname, '..');
const INSTANCE = 27;
const options = e2eLabOptions(INSTANCE);
const N1 = `lab${INSTANCE}-node-1`;
const N2 = `lab${INSTANCE}-node-2`;
const NS = 'tosvc';
const POLICY = 'to-services';
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

/** Every server Pod serves (serve.mjs) on both ports and greets each connection with "<ns>/<pod>". */
const SERVER_PORTS = [
  { port: 80, protocol: 'TCP' as const },
  { port: 81, protocol: 'TCP' as const },
];
/** `node -e GREETINGS host port n`: n connections in turn; prints the greetings as a JSON array (null: none in 3 s). */
const GREETINGS = `
const net = require('node:net');
const [host, port, n] = process.argv.slice(1);
const greet = () => new Promise((done) => {
  const s = net.connect({ host, port: Number(port) });
  let text = '';
  const t = setTimeout(() => { s.destroy(); done(null); }, 3000);
  s.on('data', (d) => (text += d));
  s.on('close', () => { clearTimeout(t); done(text.trim() || null); });
  s.on('error', () => {});
});
(async () => { const all = []; for (let i = 0; i < Number(n); i++) all.push(await greet()); console.log(JSON.stringify(all)); })();
`;

type TraceflowResult = Pick<Traceflow['status'] & object, 'phase' | 'results'>;

describe.skipIf(!isRoot)('toServices egress rules on the lab', () => {
  let lab: Lab;

  const clusterIp = async (svc: string) =>
    (await lab.kubectl(['get', 'service', svc, '-n', NS, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  const podIp = (name: string) => lab.pod(NS, name).ips[0] as string;
  const service = (name: string, app: string, ports: { port: number; targetPort: number }[], extra = {}) =>
    lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace: NS },
        spec: {
          selector: { app },
          ports: ports.map((p) => ({ name: `p${p.port}`, protocol: 'TCP', ...p })),
          ...extra,
        },
      }),
    });
  /** One TCP probe from the client (probe.mjs: allow = connection opened, drop = nothing came back). */
  const verdict = async (ip: string, port: number, timeoutMs = 1_500): Promise<ProbeVerdict> =>
    (await lab.probe({ namespace: NS, name: 'client' }, [{ ip, port, protocol: 'TCP' }], timeoutMs))[0]!
      .result;
  const becomes = (what: string, ip: string, port: number, want: ProbeVerdict) =>
    poll(`${what}: ${ip}:${port} ${want}`, async () => (await verdict(ip, port)) === want, {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
  const greetings = async (ip: string, port: number, n: number): Promise<(string | null)[]> =>
    JSON.parse(
      await lab.exec(NS, 'client', ['node', '-e', GREETINGS, ip, String(port), String(n)], {
        timeoutMs: n * 3_000 + 20_000,
      }),
    );

  /** Node 1's br-int flows matching `filter` (ovs-ofctl syntax), one per line. */
  const flows = async (filter: string): Promise<string[]> => {
    const out = await lab.brIntOfctl(N1, ['dump-flows'], [filter]);
    return out.split('\n').filter((l) => l.includes('actions='));
  };
  /** Packets the policy's Drop rule dropped on Node 1 (its metric flow: APDeny set, action drop). */
  const policyDrops = async () =>
    (await flows('ip'))
      .filter((l) => l.includes('reg0=0x400/0x400') && l.endsWith('actions=drop'))
      .reduce((sum, l) => sum + Number(/n_packets=(\d+)/.exec(l)?.[1] ?? 0), 0);
  /** Waits until the Drop rule has counted more than `before` (the switch credits counters a little later). */
  const dropsAbove = (before: number) =>
    poll('the Drop rule to count the attempt', async () => (await policyDrops()) > before, {
      timeoutMs: 60_000,
      intervalMs: 300,
    });
  /** The select group AntreaProxy on Node 1 sends the service port to (its ServiceLB flow loads it into reg7). */
  const groupIdOf = async (ip: string, port: number) => {
    const lb = (await flows(`tcp,nw_dst=${ip},tp_dst=${port}`)).find((l) => l.includes('->reg7'));
    return /set_field:(0x[0-9a-f]+)->reg7/.exec(lb ?? '')?.[1];
  };
  /** Node 1's policy clause flows matching reg7 = `id`. */
  const ruleFlowsFor = async (id: string) =>
    (await flows(`ip,reg7=${id}`)).filter((l) => l.includes('conjunction('));

  /** `antctl traceflow` (the built CLI) from the client to a Service of NS, TCP to `port`. */
  const traceflow = async (svc: string, port: number): Promise<TraceflowResult> => {
    const antctl = [
      process.execPath,
      join(ROOT, 'dist/cmd/antctl/main.js'),
      '--kubeconfig',
      lab.kubeconfigPath,
    ];
    const args = ['-S', `${NS}/client`, '-D', `${NS}/${svc}`, '-f', `tcp,tcp_dst=${port}`, '-o', 'json'];
    return JSON.parse(await run([...antctl, '-t', '40s', 'traceflow', ...args], { timeoutMs: 90_000 }));
  };

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/antctl'],
      { cwd: ROOT },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    await lab.createPod({ namespace: NS, name: 'client', node: N1, labels: { app: 'client' } });
    await lab.createPod({ namespace: NS, name: 'a1', node: N1, labels: { app: 'a' }, ports: SERVER_PORTS });
    await lab.createPod({ namespace: NS, name: 'a2', node: N2, labels: { app: 'a' }, ports: SERVER_PORTS });
    await lab.createPod({ namespace: NS, name: 'b1', node: N2, labels: { app: 'b' }, ports: SERVER_PORTS });
    await lab.createPod({
      namespace: NS,
      name: 'l1',
      node: N2,
      labels: { app: 'late' },
      ports: SERVER_PORTS,
    });
    await service('svc-a', 'a', [{ port: 8080, targetPort: 80 }]);
    await service('svc-b', 'b', [{ port: 8080, targetPort: 80 }]);
    // Without the policy everything answers: what is dropped later is the policy's doing.
    await becomes('svc-a before the policy', await clusterIp('svc-a'), 8080, 'allow');
    await becomes('svc-b before the policy', await clusterIp('svc-b'), 8080, 'allow');
    for (const pod of ['a1', 'a2']) await becomes(`${pod} before the policy`, podIp(pod), 80, 'allow');
    await applyEgressPolicy(lab, POLICY, 'client', [
      {
        action: 'Allow',
        name: 'allow-services',
        enableLogging: true,
        toServices: [
          { name: 'svc-a', namespace: NS },
          { name: 'svc-late', namespace: NS },
        ],
      },
      { action: 'Drop', name: 'drop-rest' },
    ]);
    await lab.kubectl(['wait', '--for=jsonpath={.status.phase}=Realized', '--timeout=60s', `acnp/${POLICY}`]);
    await becomes('svc-b under the policy', await clusterIp('svc-b'), 8080, 'drop');
  }, 300_000);

  afterAll(async () => {
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it("TCP to svc-a's ClusterIP is allowed and reaches its endpoints on both Nodes", async () => {
    const ip = await clusterIp('svc-a');
    await becomes('svc-a under the policy', ip, 8080, 'allow');
    const seen = await greetings(ip, 8080, 24);
    expect(seen.every((g) => g === `${NS}/a1` || g === `${NS}/a2`)).toBe(true);
    expect(new Set(seen)).toEqual(new Set([`${NS}/a1`, `${NS}/a2`]));
  }, 120_000);

  it("TCP straight to svc-a's endpoint Pods (local and remote) and to svc-b's ClusterIP is dropped by the Drop rule", async () => {
    for (const [ip, port] of [
      [podIp('a1'), 80],
      [podIp('a2'), 80],
      [await clusterIp('svc-b'), 8080],
    ] as const) {
      const before = await policyDrops();
      expect(await verdict(ip, port)).toBe('drop');
      await dropsAbove(before);
    }
  }, 120_000);

  it('a port added to svc-a is allowed with no policy change', async () => {
    const ip = await clusterIp('svc-a');
    // svc-b has the new port's number too: only svc-a's group is allowed, not the port.
    await service('svc-b', 'b', [
      { port: 8080, targetPort: 80 },
      { port: 8081, targetPort: 81 },
    ]);
    await service('svc-a', 'a', [
      { port: 8080, targetPort: 80 },
      { port: 8081, targetPort: 81 },
    ]);
    await becomes('the new port of svc-a', ip, 8081, 'allow');
    expect(await verdict(await clusterIp('svc-b'), 8081)).toBe('drop');
  }, 120_000);

  it('svc-late: allowed once created, dropped once deleted, allowed again when re-created (no policy change)', async () => {
    const generation = await lab.kubectl(['get', 'acnp', POLICY, '-o', 'jsonpath={.metadata.generation}']);
    await service('svc-late', 'late', [{ port: 8080, targetPort: 80 }]);
    const ip = await clusterIp('svc-late');
    await becomes('svc-late created', ip, 8080, 'allow');
    expect(await greetings(ip, 8080, 3)).toEqual(Array(3).fill(`${NS}/l1`));
    const id = await groupIdOf(ip, 8080);
    expect(id).toBeDefined();
    // The rule's peer clause matches the Service port's group in reg7.
    expect(await ruleFlowsFor(id!)).toHaveLength(1);

    await lab.kubectl(['delete', 'service', 'svc-late', '-n', NS]);
    await poll('the rule to drop svc-late’s group', async () => (await ruleFlowsFor(id!)).length === 0, {
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const before = await policyDrops();
    expect(await verdict(ip, 8080)).toBe('drop');
    await dropsAbove(before);

    // Re-created with ClientIP affinity: later connections take the learned endpoint, whose
    // learned flow loads the group id too.
    await service('svc-late', 'late', [{ port: 8080, targetPort: 80 }], { sessionAffinity: 'ClientIP' });
    const again = await clusterIp('svc-late');
    await becomes('svc-late re-created', again, 8080, 'allow');
    expect(await greetings(again, 8080, 4)).toEqual(Array(4).fill(`${NS}/l1`));
    const learned = await flows(`tcp,nw_src=${podIp('client')},nw_dst=${again},tp_dst=8080`);
    expect(learned.some((l) => /hard_timeout=.*->reg7/i.test(l))).toBe(true);
    expect(await lab.kubectl(['get', 'acnp', POLICY, '-o', 'jsonpath={.metadata.generation}'])).toBe(
      generation,
    );
  }, 180_000);

  it('Traceflow names the toServices rule that allowed svc-a and the Drop rule for svc-b; the audit log has the allowed connection', async () => {
    const allowed = await traceflow('svc-a', 8080);
    expect(allowed.phase).toBe('Succeeded');
    const n1 = allowed.results?.find((r) => r.node === N1)?.observations ?? [];
    expect(n1).toContainEqual({
      component: 'NetworkPolicy',
      componentInfo: 'EgressRule',
      action: 'Forwarded',
      networkPolicy: `AntreaClusterNetworkPolicy:${POLICY}`,
      networkPolicyRule: 'allow-services',
    });
    const dropped = await traceflow('svc-b', 8080);
    expect(dropped.results?.find((r) => r.node === N1)?.observations?.at(-1)).toEqual({
      component: 'NetworkPolicy',
      componentInfo: 'EgressMetric',
      action: 'Dropped',
      networkPolicy: `AntreaClusterNetworkPolicy:${POLICY}`,
      networkPolicyRule: 'drop-rest',
    });
    // enableLogging: the Allow rule logs each new connection with the endpoint it was DNATed to.
    const log = join(lab.layout.nodeDir(N1), 'networkpolicy', 'np.log');
    const endpoints = [podIp('a1'), podIp('a2')];
    // The agent writes audit lines from packet-ins, apart from the connections it logs: wait for one.
    const line = await settle(
      async () =>
        readFileSync(log, 'utf8')
          .split('\n')
          .find((l) => l.includes(`AntreaClusterNetworkPolicy:${POLICY} allow-services Out Allow`)),
      (l) => l !== undefined,
    );
    expect(line).toBeDefined();
    expect(endpoints.some((ip) => line!.includes(` ${ip} 80 TCP`))).toBe(true);
  }, 180_000);

  it('after an agent restart the toServices rule allows svc-a from the first connection, svc-b stays dropped', async () => {
    await lab.restart(`antrea-agent@${N1}`);
    expect(await verdict(await clusterIp('svc-a'), 8080, 3_000)).toBe('allow');
    expect(await verdict(await clusterIp('svc-b'), 8080)).toBe('drop');
  }, 180_000);
});
