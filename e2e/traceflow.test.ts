// Traceflow end to end on the lab (instance 20: lab20-*, lb20*, its own state dir): a 2-Node lab
// with the real antrea-controller, antrea-agents and userspace OVS; `antctl traceflow` (the built
// CLI, through the lab's kubeconfig) creates each Traceflow, the controller tags it, the source
// Node injects a real packet, and every Node on the path writes what its packet-ins saw.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Traceflow } from '@antrea-ts/apis';
import { waitFor } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';

const ROOT = join(import.meta.dirname, '..');
const options = e2eLabOptions(20);
const N1 = 'lab20-node-1';
const N2 = 'lab20-node-2';
const NS = 'tf';
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

type TraceflowResult = Pick<Traceflow['status'] & object, 'phase' | 'reason' | 'results'> & { name: string };

describe.skipIf(!isRoot)('Traceflow on the lab', () => {
  let lab: Lab;

  /** `antctl traceflow ARGS` against the lab; -o json output parsed, or the text for -o table. */
  async function antctl(args: string[]): Promise<string> {
    const { stdout } = await exec(
      'node',
      [
        join(ROOT, 'dist/cmd/antctl/main.js'),
        '--kubeconfig',
        lab.kubeconfigPath,
        '-t',
        '40s',
        'traceflow',
        ...args,
      ],
      { timeout: 90_000 },
    );
    return stdout;
  }
  const trace = async (args: string[]) =>
    JSON.parse(await antctl([...args, '-o', 'json'])) as TraceflowResult;
  const nodeResult = (r: TraceflowResult, node: string) => r.results?.find((n) => n.node === node);

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/antctl'],
      {
        cwd: ROOT,
      },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2 });
    const ports = [{ port: 80, protocol: 'TCP' as const }];
    await lab.createPod({ namespace: NS, name: 'a', node: N1, labels: { app: 'a' }, ports });
    await lab.createPod({ namespace: NS, name: 'b', node: N1, labels: { app: 'b' }, ports });
    await lab.createPod({ namespace: NS, name: 'c', node: N2, labels: { app: 'c' }, ports });
  }, 300_000);

  afterAll(async () => {
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('intra-Node: a to b is Delivered, seen by one Node as sender', async () => {
    const r = await trace(['-S', `${NS}/a`, '-D', `${NS}/b`]);
    expect(r.phase).toBe('Succeeded');
    expect(r.results).toHaveLength(1);
    expect(nodeResult(r, N1)).toMatchObject({
      role: 'sender',
      observations: [
        { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: lab.pod(NS, 'a').ips[0] },
        { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: `${NS}/b` },
      ],
    });
  });

  it('inter-Node: a to c goes through the tunnel to Node 2, which delivers it; both Nodes report', async () => {
    const r = await trace(['-S', `${NS}/a`, '-D', `${NS}/c`, '-f', 'tcp,tcp_dst=80']);
    expect(r.phase).toBe('Succeeded');
    expect(nodeResult(r, N1)?.observations).toEqual([
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: lab.pod(NS, 'a').ips[0] },
      {
        component: 'Forwarding',
        componentInfo: 'Output',
        action: 'Forwarded',
        tunnelDstIP: lab.node(N2).nodeIp,
      },
    ]);
    expect(nodeResult(r, N2)).toMatchObject({
      role: 'receiver',
      observations: [
        { component: 'Forwarding', action: 'Received' },
        { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: `${NS}/c` },
      ],
    });
    // The readable form names the path Node by Node.
    const table = await antctl(['-S', `${NS}/a`, '-D', `${NS}/c`, '-o', 'table']);
    expect(table).toMatch(/Succeeded/);
    expect(table).toMatch(
      new RegExp(
        `${N1}\\s+sender\\s+Forwarding\\s+Forwarded\\s+Output; tunnel to ${lab.node(N2).nodeIp.replaceAll('.', '\\.')}`,
      ),
    );
    expect(table).toMatch(new RegExp(`${N2}\\s+receiver\\s+Forwarding\\s+Delivered\\s+Output; pod ${NS}/c`));
  });

  it('an IP outside the cluster leaves through the gateway (ForwardedOutOfNetwork)', async () => {
    const r = await trace(['-S', `${NS}/a`, '-D', '198.51.100.7']);
    expect(r.phase).toBe('Succeeded');
    expect(r.results).toHaveLength(1);
    expect(nodeResult(r, N1)?.observations?.at(-1)).toEqual({
      component: 'Forwarding',
      componentInfo: 'Output',
      action: 'ForwardedOutOfNetwork',
    });
  });

  it('a policy drop names the Antrea-native policy and rule, on the Node that dropped it', async () => {
    await lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: { name: 'tf-deny-a' },
        spec: {
          tier: 'application',
          priority: 5,
          appliedTo: [{ podSelector: { matchLabels: { app: 'c' } } }],
          ingress: [
            {
              action: 'Drop',
              name: 'drop-a-80',
              from: [{ podSelector: { matchLabels: { app: 'a' } }, namespaceSelector: {} }],
              ports: [{ protocol: 'TCP', port: 80 }],
            },
          ],
        },
      }),
    });
    await lab.kubectl(['wait', '--for=jsonpath={.status.phase}=Realized', '--timeout=60s', 'acnp/tf-deny-a']);
    const r = await trace(['-S', `${NS}/a`, '-D', `${NS}/c`, '-f', 'tcp,tcp_dst=80']);
    expect(r.phase).toBe('Succeeded');
    expect(nodeResult(r, N2)?.observations?.at(-1)).toEqual({
      component: 'NetworkPolicy',
      componentInfo: 'IngressMetric',
      action: 'Dropped',
      networkPolicy: 'AntreaClusterNetworkPolicy:tf-deny-a',
      networkPolicyRule: 'drop-a-80',
    });
    // Other ports still get through, past the same policy.
    const other = await trace(['-S', `${NS}/a`, '-D', `${NS}/c`, '-f', 'tcp,tcp_dst=81']);
    expect(nodeResult(other, N2)?.observations?.at(-1)).toMatchObject({ action: 'Delivered' });
  });
  /**
   * Runs `antctl traceflow` for live traffic while a's netns opens TCP connections to ip:port (c's
   * IP by default); also returns what those connections saw.
   */
  async function traceLive(
    args: string[],
    port: number,
    ip = lab.pod(NS, 'c').ips[0]!,
  ): Promise<TraceflowResult & { probes: string[] }> {
    let done = false;
    const result = trace(args).finally(() => (done = true));
    const probes: string[] = [];
    while (!done) {
      const [p] = await lab.probe({ namespace: NS, name: 'a' }, [{ ip, port, protocol: 'TCP' }], 1_000);
      probes.push(p!.result);
      await new Promise((r) => setTimeout(r, 500));
    }
    return { ...(await result), probes };
  }
  const service = (name: string, app: string, ports: object[]) =>
    lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace: NS },
        spec: { selector: { app }, ports },
      }),
    });

  it('live traffic: the first real connection from a to c is traced on both Nodes and captured', async () => {
    const r = await traceLive(['-S', `${NS}/a`, '-D', `${NS}/c`, '-f', 'tcp,tcp_dst=81', '-L'], 81);
    expect(r.phase).toBe('Succeeded');
    expect(nodeResult(r, N1)?.observations?.at(-1)).toMatchObject({
      action: 'Forwarded',
      tunnelDstIP: lab.node(N2).nodeIp,
    });
    expect(nodeResult(r, N2)?.observations?.at(-1)).toMatchObject({ action: 'Delivered', pod: `${NS}/c` });
    expect((r as { capturedPacket?: unknown }).capturedPacket).toMatchObject({
      srcIP: lab.pod(NS, 'a').ips[0],
      dstIP: lab.pod(NS, 'c').ips[0],
      transportHeader: { tcp: { dstPort: 81 } },
    });
  });

  it('dropped-only live traffic reports only the Node that dropped the packet', async () => {
    const r = await traceLive(
      ['-S', `${NS}/a`, '-D', `${NS}/c`, '-f', 'tcp,tcp_dst=80', '-L', '--dropped-only'],
      80,
    );
    expect(r.phase).toBe('Succeeded');
    expect(r.results?.map((n) => n.node)).toEqual([N2]);
    expect(nodeResult(r, N2)?.observations?.at(-1)).toMatchObject({
      action: 'Dropped',
      networkPolicy: 'AntreaClusterNetworkPolicy:tf-deny-a',
      networkPolicyRule: 'drop-a-80',
    });
  });

  it('a Service destination: AntreaProxy on the source Node picks the endpoint (LB, DNAT to it), the path goes on to it', async () => {
    // Port 8080 -> c:81 (allowed), 8081 -> c:80 (dropped at c by tf-deny-a, which sees the endpoint).
    await service('web-c', 'c', [
      { name: 'ok', port: 8080, targetPort: 81, protocol: 'TCP' },
      { name: 'denied', port: 8081, targetPort: 80, protocol: 'TCP' },
    ]);
    await service('web-b', 'b', [{ port: 8080, targetPort: 80, protocol: 'TCP' }]);
    const [c, b] = [lab.pod(NS, 'c').ips[0], lab.pod(NS, 'b').ips[0]];
    const spoofGuard = { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: lab.pod(NS, 'a').ips[0] };
    // No destination port: the Service's first TCP port (8080).
    const remote = await trace(['-S', `${NS}/a`, '-D', `${NS}/web-c`, '-f', 'tcp']);
    expect(remote.phase).toBe('Succeeded');
    expect(nodeResult(remote, N1)?.observations).toEqual([
      spoofGuard,
      { component: 'LB', action: 'Forwarded', translatedDstIP: c },
      {
        component: 'Forwarding',
        componentInfo: 'Output',
        action: 'Forwarded',
        tunnelDstIP: lab.node(N2).nodeIp,
      },
    ]);
    expect(nodeResult(remote, N2)?.observations).toEqual([
      { component: 'Forwarding', action: 'Received' },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: `${NS}/c` },
    ]);
    const local = await trace(['-S', `${NS}/a`, '-D', `${NS}/web-b`, '-f', 'tcp,tcp_dst=8080']);
    expect(local.phase).toBe('Succeeded');
    expect(local.results).toHaveLength(1);
    expect(nodeResult(local, N1)?.observations).toEqual([
      spoofGuard,
      { component: 'LB', action: 'Forwarded', translatedDstIP: b },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: `${NS}/b` },
    ]);
    const denied = await trace(['-S', `${NS}/a`, '-D', `${NS}/web-c`, '-f', 'tcp,tcp_dst=8081']);
    expect(nodeResult(denied, N2)?.observations?.at(-1)).toEqual({
      component: 'NetworkPolicy',
      componentInfo: 'IngressMetric',
      action: 'Dropped',
      networkPolicy: 'AntreaClusterNetworkPolicy:tf-deny-a',
      networkPolicyRule: 'drop-a-80',
    });
    // Hairpin: a reaches itself through its own Service, SNATed to the virtual IP.
    await service('web-a', 'a', [{ port: 8080, targetPort: 80, protocol: 'TCP' }]);
    const hairpin = await trace(['-S', `${NS}/a`, '-D', `${NS}/web-a`, '-f', 'tcp']);
    expect(hairpin.phase).toBe('Succeeded');
    expect(nodeResult(hairpin, N1)?.observations).toEqual([
      spoofGuard,
      {
        component: 'LB',
        action: 'Forwarded',
        translatedDstIP: spoofGuard.srcPodIP,
        translatedSrcIP: '169.254.0.253',
      },
      { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: `${NS}/a` },
    ]);
    // A Service that does not exist ends the Traceflow at once, with the source Node's reason.
    const missing = await trace(['-S', `${NS}/a`, '-D', `${NS}/nope`]);
    expect(missing.phase).toBe('Failed');
    expect(missing.reason).toBe(
      `Node: ${N1}, error: failed to get the destination Service ${NS}/nope: not found`,
    );
  });

  it('a Service without endpoints: the source Node reports LB Rejected (Antrea would time out); live clients are still refused', async () => {
    await service('web-none', 'nobody', [{ port: 8080, targetPort: 80, protocol: 'TCP' }]);
    const clusterIp = (
      await lab.kubectl(['get', 'service', '-n', NS, 'web-none', '-o', 'jsonpath={.spec.clusterIP}'])
    ).trim();
    // AntreaProxy has the Service when a connection to it is refused (the no-endpoint reject).
    await waitFor(
      'web-none refused',
      async () =>
        (
          await lab.probe(
            { namespace: NS, name: 'a' },
            [{ ip: clusterIp, port: 8080, protocol: 'TCP' }],
            1_000,
          )
        )[0]?.result === 'reject',
      60_000,
      500,
    );
    const expected = [
      { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: lab.pod(NS, 'a').ips[0] },
      { component: 'LB', action: 'Rejected' },
    ];
    const injected = await trace(['-S', `${NS}/a`, '-D', `${NS}/web-none`, '-f', 'tcp']);
    expect(injected.phase).toBe('Succeeded');
    expect(injected.results).toHaveLength(1);
    expect(nodeResult(injected, N1)?.observations).toEqual(expected);
    // Live traffic: the first real connection is traced, and it and the later ones are still refused.
    const live = await traceLive(
      ['-S', `${NS}/a`, '-D', `${NS}/web-none`, '-f', 'tcp,tcp_dst=8080', '-L'],
      8080,
      clusterIp,
    );
    expect(live.phase).toBe('Succeeded');
    expect(nodeResult(live, N1)?.observations).toEqual(expected);
    expect(live.probes.length).toBeGreaterThan(0);
    expect(new Set(live.probes)).toEqual(new Set(['reject']));
  });

  it('a Traceflow no Node can start fails after its timeout and gives its tag back', async () => {
    await lab.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'Traceflow',
        metadata: { name: 'tf-ghost' },
        spec: {
          source: { namespace: NS, pod: 'ghost' },
          destination: { namespace: NS, pod: 'c' },
          timeout: 2,
        },
      }),
    });
    await lab.kubectl([
      'wait',
      '--for=jsonpath={.status.phase}=Failed',
      '--timeout=60s',
      'traceflow/tf-ghost',
    ]);
    const tf = JSON.parse(await lab.kubectl(['get', 'traceflow', 'tf-ghost', '-o', 'json'])) as Traceflow;
    expect(tf.status).toMatchObject({ phase: 'Failed', reason: 'Traceflow timeout', dataplaneTag: 0 });
    await lab.kubectl(['delete', 'traceflow', 'tf-ghost']);
  });
});
