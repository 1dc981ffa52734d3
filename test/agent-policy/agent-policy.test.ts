// NetworkPolicy enforcement end to end on the lab (real etcd + kube-apiserver, antrea-controller,
// antrea-agent binaries in netns Nodes with userspace OVS): the bridge is dumped with ovs-ofctl to
// check flows per rule, and real TCP packets between Pod netns are allowed or denied. Instance 12
// of the lab names (lab12-*), so it can run beside a developer's lab and the other lab tests.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';
import { brIntOfctl, freshLab } from './lab-run.js';

const options = e2eLabOptions(12, { owner: 'test' });
const N1 = 'lab12-node-1';
const N2 = 'lab12-node-2';
let lab: Lab;

type Ref = { namespace: string; name: string };
const pod = (name: string): Ref => ({ namespace: 'np', name });

async function probe(from: Ref, to: Ref, port: number): Promise<string> {
  const ip = lab.pod(to.namespace, to.name).ips[0]!;
  const [r] = await lab.probe(from, [{ ip, port, protocol: 'TCP' }], 1_000);
  return r!.result;
}

/** Probes until the verdict is `want` or 30 s pass; returns the last verdict. */
async function eventually(from: Ref, to: Ref, port: number, want: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = await probe(from, to, port);
    if (got === want || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** br-int's flows on a Node, as ovs-ofctl prints them (counters stripped). */
async function dumpFlows(node: string): Promise<string[]> {
  const out = await brIntOfctl(lab, node, ['--no-stats', 'dump-flows']);
  return out.split('\n').filter((l) => l.includes('cookie='));
}

/** Policy flows (cookie category 2) grouped by the conjunction id their actions or cookie name. */
function policyFlows(flows: readonly string[]): string[] {
  return flows.filter((l) => /cookie=0x[0-9a-f]*02[0-9a-f]{10},/.test(l));
}

/** Every Node's np.log (the lab points each agent's audit log into its Node dir). */
async function auditLogs(): Promise<string> {
  const nodesDir = join(options.stateDir, 'nodes');
  const nodes = await readdir(nodesDir).catch(() => [] as string[]);
  const logs = await Promise.all(
    nodes.map((n) => readFile(join(nodesDir, n, 'networkpolicy', 'np.log'), 'utf8').catch(() => '')),
  );
  return logs.join('\n');
}

async function waitFor<T>(fn: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const apply = (o: unknown) => lab.kubectl(['apply', '-f', '-'], { input: JSON.stringify(o) });

describe('agent NetworkPolicy enforcement', () => {
  beforeAll(async () => {
    lab = await freshLab(options, 2);
    const ports = [
      { port: 80, protocol: 'TCP' as const },
      { port: 81, protocol: 'TCP' as const },
    ];
    await Promise.all([
      lab.createPod({ namespace: 'np', name: 'client', node: N1, labels: { app: 'client' }, ports }),
      lab.createPod({ namespace: 'np', name: 'other', node: N1, labels: { app: 'other' }, ports }),
      lab.createPod({ namespace: 'np', name: 'server', node: N2, labels: { app: 'server' }, ports }),
      lab.createPod({ namespace: 'np', name: 'server2', node: N2, labels: { app: 'server' }, ports }),
    ]);
  }, 600_000);

  afterAll(async () => {
    await lab?.down();
  }, 300_000);

  it('K8s NetworkPolicy: isolation, then allow by pod selector and port; flows per rule are additive', async () => {
    expect(await probe(pod('other'), pod('server'), 80)).toBe('allow');
    await apply({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'server-ingress', namespace: 'np' },
      spec: {
        podSelector: { matchLabels: { app: 'server' } },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              { podSelector: { matchLabels: { app: 'client' } } },
              { ipBlock: { cidr: '203.0.113.0/24', except: ['203.0.113.128/25'] } },
            ],
            ports: [{ port: 80 }, { port: 8000, endPort: 8003 }],
          },
        ],
      },
    });
    expect(await eventually(pod('client'), pod('server'), 80, 'allow')).toBe('allow');
    expect(await eventually(pod('other'), pod('server'), 80, 'drop')).toBe('drop');
    expect(await probe(pod('client'), pod('server'), 81)).toBe('drop');
    expect(await probe(pod('client'), pod('server2'), 80)).toBe('allow');

    const flows = policyFlows(await dumpFlows(N2));
    const conj = flows.filter((l) => l.includes('conjunction('));
    // from: client /32 + 203.0.113.0/25; to: 2 server ofports; ports: 80 + 8000/0xfffc; 1 action.
    expect(conj.filter((l) => l.includes('nw_src='))).toHaveLength(2);
    expect(conj.filter((l) => l.includes('reg1='))).toHaveLength(2);
    expect(conj.filter((l) => l.includes('tp_dst='))).toHaveLength(2);
    expect(conj.some((l) => l.includes('tp_dst=0x1f40/0xfffc'))).toBe(true);
    expect(flows.filter((l) => l.includes('conj_id='))).toHaveLength(1);
    // Isolation: one drop per applied-to Pod in IngressDefaultRule.
    expect(flows.filter((l) => /priority=200,ip,reg1=0x[0-9a-f]+ actions=drop/.test(l))).toHaveLength(2);
    // The client's Node has no applied-to Pod: only the established bypass flows.
    expect(policyFlows(await dumpFlows(N1)).filter((l) => l.includes('conjunction('))).toHaveLength(0);

    await lab.kubectl(['delete', 'networkpolicy', '-n', 'np', 'server-ingress']);
    expect(await eventually(pod('other'), pod('server'), 80, 'allow')).toBe('allow');
    expect(policyFlows(await dumpFlows(N2)).filter((l) => l.includes('conj'))).toHaveLength(0);
  });

  it('ACNP: Drop and Reject deny, Pass falls through to K8s policies, higher tier wins', async () => {
    const acnp = (name: string, tier: string, priority: number, ingress: unknown[]) =>
      apply({
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: { name },
        spec: { tier, priority, appliedTo: [{ podSelector: { matchLabels: { app: 'server' } } }], ingress },
      });
    const fromApp = (app: string) => [{ podSelector: { matchLabels: { app } }, namespaceSelector: {} }];
    await acnp('drop-other', 'application', 5, [
      { action: 'Drop', name: 'drop-80', enableLogging: true, from: fromApp('other'), ports: [{ port: 80 }] },
    ]);
    await acnp('reject-client-81', 'application', 6, [
      { action: 'Reject', from: fromApp('client'), ports: [{ port: 81 }] },
    ]);
    expect(await eventually(pod('other'), pod('server'), 80, 'drop')).toBe('drop');
    // enableLogging: the dropped SYNs are in the audit log, one documented line each.
    const logged = await waitFor(async () =>
      (await auditLogs())
        .split('\n')
        .find((l) => l.includes('AntreaClusterNetworkPolicy:drop-other drop-80 In Drop')),
    );
    const o = lab.pod('np', 'other').ips[0]!;
    const srv = lab.pod('np', 'server').ips[0]!;
    expect(logged).toMatch(
      new RegExp(
        `^\\d{4}/\\d\\d/\\d\\d \\S+ AntreaPolicyIngressRule .* np/server ${o} \\d+ ${srv} 80 TCP \\d+ -$`,
      ),
    );
    // Reject answers (TCP RST from the agent); Drop stays silent.
    expect(await eventually(pod('client'), pod('server'), 81, 'reject')).toBe('reject');
    expect(await probe(pod('client'), pod('server'), 80)).toBe('allow');
    expect(await probe(pod('other'), pod('server'), 81)).toBe('allow');

    // A securityops Allow comes before the application tier's Drop.
    await acnp('allow-other', 'securityops', 1, [
      { action: 'Allow', from: fromApp('other'), ports: [{ port: 80 }] },
    ]);
    expect(await eventually(pod('other'), pod('server'), 80, 'allow')).toBe('allow');

    // Pass skips the remaining Antrea tiers: the application Drop no longer applies, and a K8s
    // policy isolating the server decides.
    await acnp('allow-other', 'securityops', 1, [
      { action: 'Pass', from: fromApp('other'), ports: [{ port: 80 }] },
    ]);
    await apply({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'server-deny', namespace: 'np' },
      spec: { podSelector: { matchLabels: { app: 'server' } }, policyTypes: ['Ingress'] },
    });
    expect(await eventually(pod('other'), pod('server'), 80, 'drop')).toBe('drop');
    await lab.kubectl(['delete', 'networkpolicy', '-n', 'np', 'server-deny']);
    expect(await eventually(pod('other'), pod('server'), 80, 'allow')).toBe('allow');

    const flows = policyFlows(await dumpFlows(N2));
    // Three ACNP rules on this Node, each with one action flow at its own priority.
    const actions = flows.filter((l) => l.includes('conj_id='));
    expect(actions).toHaveLength(3);
    expect(new Set(actions.map((l) => /priority=(\d+)/.exec(l)![1])).size).toBe(3);
    for (const name of ['drop-other', 'reject-client-81', 'allow-other']) {
      await lab.kubectl(['delete', 'clusternetworkpolicy', name]);
    }
    expect(await eventually(pod('client'), pod('server'), 81, 'allow')).toBe('allow');
  });
  it('controller, agent and ovs-vswitchd restarts: allowed traffic keeps flowing, denied never passes', async () => {
    await apply({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'server-from-client', namespace: 'np' },
      spec: {
        podSelector: { matchLabels: { app: 'server' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }], ports: [{ port: 80 }] }],
      },
    });
    expect(await eventually(pod('other'), pod('server'), 80, 'drop')).toBe('drop');
    expect(await eventually(pod('client'), pod('server'), 80, 'allow')).toBe('allow');
    const tally = { allowedFailed: 0, allowedOk: 0, deniedPassed: 0, deniedOk: 0 };
    let running = true;
    const loop = (async () => {
      while (running) {
        const [a, d] = await Promise.all([
          probe(pod('client'), pod('server'), 80),
          probe(pod('other'), pod('server'), 80),
        ]);
        if (a === 'allow') tally.allowedOk++;
        else tally.allowedFailed++;
        if (d === 'allow') tally.deniedPassed++;
        else tally.deniedOk++;
      }
    })();
    const components = lab.components();
    const restarts = [
      components.find((c) => c === 'antrea-controller'),
      components.find((c) => c === `antrea-agent@${N2}`),
      components.find((c) => c.startsWith('ovs-vswitchd') && c.includes(N2)),
    ].filter((c): c is string => c !== undefined);
    expect(restarts).toHaveLength(3);
    for (const c of restarts) {
      await lab.restart(c);
      await new Promise((r) => setTimeout(r, 2_000));
    }
    running = false;
    await loop;
    options.logger.info({ tally }, 'probe loop across restarts');
    // Denied traffic never passes; allowed traffic may see a gap only while ovs-vswitchd restarts.
    expect(tally.deniedPassed, JSON.stringify(tally)).toBe(0);
    expect(tally.allowedOk).toBeGreaterThan(0);
    expect(tally.allowedFailed).toBeLessThan(tally.allowedOk);
    expect(await eventually(pod('client'), pod('server'), 80, 'allow')).toBe('allow');
    await lab.kubectl(['delete', 'networkpolicy', '-n', 'np', 'server-from-client']);
  }, 300_000);
});
