// bench:realize — Antrea's realization benchmark on the lab: one K8s NetworkPolicy with N random
// /32 ipBlock peers applied to one Pod; time from creating it in the API to all its flows being in
// the Node's br-int (polled with ovs-ofctl dump-aggregate), and the flow count. Instance 14 of the
// lab names (lab14-*). Needs root, OVS and the kube binaries, like the integration tests.
//   tsc -b test && node dist/test/agent-policy/bench-realize.js [--json] [--peers 5000,10000,15000]
import { intervalsToCidrs } from '@antrea-ts/agent';
import { BenchReport } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';
import { benchMain, brIntOfctl } from './lab-run.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const peersAt = argv.indexOf('--peers');
const SIZES = (peersAt >= 0 ? argv[peersAt + 1]! : '5000,10000,15000').split(',').map(Number);
const options = e2eLabOptions(14, { owner: 'bench' });

const report = new BenchReport('realize', json);

/** Deterministic random /32s outside the lab's ranges (xorshift; the same peers every run). */
function peers(n: number, seed: number): string[] {
  let x = seed >>> 0 || 1;
  const out = new Set<string>();
  while (out.size < n) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.add(`${100 + (x % 100)}.${(x >>> 8) & 0xff}.${(x >>> 16) & 0xff}.${(x >>> 24) & 0xff}`);
  }
  return [...out];
}

async function flowCount(lab: Lab, node: string, table: number): Promise<number> {
  const out = await brIntOfctl(lab, node, ['dump-aggregate'], [`table=${table}`]);
  return Number(/flow_count=(\d+)/.exec(out)?.[1] ?? 0);
}

async function main(): Promise<void> {
  await Lab.down(options);
  const lab = await Lab.up({ ...options, nodes: 1 });
  try {
    const node = 'lab14-node-1';
    await lab.createPod({ namespace: 'bench', name: 'target', node, labels: { app: 'target' } });
    const INGRESS_RULE = 16; // IngressRule in the default pipeline
    const base = await flowCount(lab, node, INGRESS_RULE);
    for (const n of SIZES) {
      const ips = peers(n, n);
      // What the agent installs: one nw_src flow per CIDR left after collapsing, the applied-to
      // Pod, the service clause (ip), and the action flow.
      const cidrs = intervalsToCidrs(
        ips.map((ip) => {
          const v = ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
          return [v, v] as const;
        }),
      );
      const want = base + cidrs.length + 1 + 1 + 1;
      const policy = {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: `peers-${n}`, namespace: 'bench' },
        spec: {
          podSelector: { matchLabels: { app: 'target' } },
          policyTypes: ['Ingress'],
          ingress: [{ from: ips.map((ip) => ({ ipBlock: { cidr: `${ip}/32` } })) }],
        },
      };
      const started = performance.now();
      await lab.kubectl(['create', '-f', '-'], { input: JSON.stringify(policy) });
      let got = 0;
      for (;;) {
        got = await flowCount(lab, node, INGRESS_RULE);
        if (got >= want || performance.now() - started > 120_000) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const ms = performance.now() - started;
      report.record(`${n} ipBlock peers`, 'create-to-flows', ms, 'ms');
      report.record(`${n} ipBlock peers`, 'IngressRule flows', got - base, 'flows');
      await lab.kubectl(['delete', 'networkpolicy', '-n', 'bench', `peers-${n}`]);
      for (let i = 0; i < 600 && (await flowCount(lab, node, INGRESS_RULE)) > base; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    report.finish();
    await lab.down();
  }
}

benchMain('bench-realize', main);
