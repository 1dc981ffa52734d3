import type { Lab } from './lab.js';
import { toApplyStream } from './manifests.js';
import type { ProbeVerdict } from './probe.js';

/**
 * The demo `lab up` deploys: two namespaces, four Pods spread over the Nodes, one K8s
 * NetworkPolicy and one Antrea ClusterNetworkPolicy, chosen so that each policy decides a
 * different cell of the connectivity matrix:
 *   - prod/db admits only app=web of its own namespace on 5432 (K8s NetworkPolicy): prod/tester
 *     and dev/client are dropped;
 *   - nothing from env=dev reaches env=prod (ClusterNetworkPolicy, Drop): dev/client -> prod/web.
 */
export const DEMO_NAMESPACES = ['prod', 'dev'] as const;

interface DemoPod {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  port: number;
  /** Index into the lab's Nodes (modulo their count); -1 is the last Node. */
  node: number;
}

const PODS: DemoPod[] = [
  { namespace: 'prod', name: 'web', labels: { app: 'web' }, port: 80, node: 0 },
  { namespace: 'prod', name: 'tester', labels: { app: 'tester' }, port: 80, node: 0 },
  { namespace: 'prod', name: 'db', labels: { app: 'db' }, port: 5432, node: 1 },
  { namespace: 'dev', name: 'client', labels: { app: 'client' }, port: 80, node: -1 },
];

/** Sources (rows) and targets (columns) of the matrix, and what each cell should show. */
const SOURCES = ['prod/web', 'prod/tester', 'dev/client'];
const TARGETS = ['prod/web', 'prod/db', 'dev/client'];
const EXPECTED: Record<string, Record<string, ProbeVerdict>> = {
  'prod/web': { 'prod/db': 'allow', 'dev/client': 'allow' },
  'prod/tester': { 'prod/web': 'allow', 'prod/db': 'drop', 'dev/client': 'allow' },
  'dev/client': { 'prod/web': 'drop', 'prod/db': 'drop' },
};

const POLICIES = [
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'db-allow-web', namespace: 'prod' },
    spec: {
      podSelector: { matchLabels: { app: 'db' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { app: 'web' } } }],
          ports: [{ protocol: 'TCP', port: 5432 }],
        },
      ],
    },
  },
  {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterNetworkPolicy',
    metadata: { name: 'deny-dev-to-prod' },
    spec: {
      priority: 5,
      appliedTo: [{ namespaceSelector: { matchLabels: { env: 'prod' } } }],
      ingress: [
        {
          name: 'drop-from-dev',
          action: 'Drop',
          from: [{ namespaceSelector: { matchLabels: { env: 'dev' } } }],
        },
      ],
    },
  },
];

export async function deployDemo(lab: Lab): Promise<void> {
  const nodes = lab.state.nodes;
  await lab.kubectl(['apply', '-f', '-'], {
    input: toApplyStream(
      DEMO_NAMESPACES.map((ns) => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns, labels: { env: ns } },
      })),
    ),
  });
  // Idempotent: `lab demo` completes a demo that is partly there.
  const existing = new Set(lab.state.pods.map((p) => `${p.namespace}/${p.name}`));
  await Promise.all(
    PODS.filter((p) => !existing.has(`${p.namespace}/${p.name}`)).map((p) =>
      lab.createPod({
        namespace: p.namespace,
        name: p.name,
        labels: p.labels,
        node: nodes[p.node < 0 ? nodes.length + p.node : p.node % nodes.length]!.name,
        ports: [{ port: p.port, protocol: 'TCP' }],
      }),
    ),
  );
  await lab.kubectl(['apply', '-f', '-'], { input: toApplyStream(POLICIES) });
}

export interface DemoCell {
  from: string;
  to: string;
  port: number;
  /** Undefined on the diagonal (a Pod to itself is not probed). */
  expected: ProbeVerdict | undefined;
  observed: ProbeVerdict | undefined;
}

export interface MatrixReport {
  sources: string[];
  targets: Array<{ pod: string; port: number; node: string }>;
  cells: DemoCell[][];
  matches: number;
  total: number;
}

/**
 * Probes every source -> target cell with real TCP connections from the source Pod's netns. Policy
 * realization is asynchronous (controller -> agents -> OVS), so it probes again until the matrix is
 * as expected or `settleMs` passed, and reports the last observation.
 */
export async function connectivityMatrix(
  lab: Lab,
  options: { settleMs?: number } = {},
): Promise<MatrixReport> {
  const settleMs = options.settleMs ?? 15_000;
  const deadline = Date.now() + settleMs;
  for (;;) {
    const report = await probeOnce(lab);
    if (report.matches === report.total || Date.now() > deadline) return report;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function probeOnce(lab: Lab): Promise<MatrixReport> {
  const ref = (s: string) => {
    const [namespace, name] = s.split('/') as [string, string];
    return { namespace, name };
  };
  const targets = TARGETS.map((t) => {
    const pod = lab.pod(ref(t).namespace, ref(t).name);
    return { pod: t, port: pod.ports[0]!.port, node: pod.node, ip: pod.ips[0]! };
  });
  let matches = 0;
  let total = 0;
  const cells = await Promise.all(
    SOURCES.map(async (from) => {
      const others = targets.filter((t) => t.pod !== from);
      const results = await lab.probe(
        ref(from),
        others.map((t) => ({ ip: t.ip, port: t.port, protocol: 'TCP' as const })),
        1_000,
      );
      return targets.map((t): DemoCell => {
        if (t.pod === from)
          return { from, to: t.pod, port: t.port, expected: undefined, observed: undefined };
        const observed = results[others.indexOf(t)]!.result;
        const expected = EXPECTED[from]?.[t.pod] ?? 'allow';
        total++;
        if (observed === expected) matches++;
        return { from, to: t.pod, port: t.port, expected, observed };
      });
    }),
  );
  return {
    sources: SOURCES,
    targets: targets.map(({ pod, port, node }) => ({ pod, port, node })),
    cells,
    matches,
    total,
  };
}

/** The matrix as text: one row per source, "allow ✓" or "allow ✗ (want drop)" per cell. */
export function formatMatrix(report: MatrixReport, nodeOf: (pod: string) => string): string {
  const head = ['from \\ to', ...report.targets.map((t) => `${t.pod}:${t.port} (${t.node})`)];
  const rows = report.cells.map((row, i) => [
    `${report.sources[i]} (${nodeOf(report.sources[i]!)})`,
    ...row.map((c) => {
      if (!c.observed) return '-';
      return c.observed === c.expected ? `${c.observed} ✓` : `${c.observed} ✗ (want ${c.expected})`;
    }),
  ]);
  const widths = head.map((_, col) => Math.max(...[head, ...rows].map((r) => r[col]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, col) => c.padEnd(widths[col]!))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}
