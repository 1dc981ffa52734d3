// The lab provider's plumbing with real packets and a real kube-apiserver, Antrea left out: Pods are
// netns on a Linux bridge running serve.mjs (BridgePodNetwork), objects go through kubectl. Nothing
// enforces policy here, so a policy's expected denials must come out as failures: that proves
// probes are real and the runner reports what it sees.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Case, FixturePod } from './framework/case-types.js';
import { BridgePodNetwork } from './framework/providers/bridge-pod-network.js';
import { KubectlObjects } from './framework/providers/kubectl-objects.js';
import { LabProvider } from './framework/providers/lab-provider.js';
import { caseLines } from './framework/report.js';
import { runCase } from './framework/runner.js';

const ROOT = join(import.meta.dirname, '..');
const isRoot = process.getuid?.() === 0;

const pod = (ns: string, name: string, ip: string): FixturePod => ({
  namespace: ns,
  name,
  labels: { pod: name },
  ips: [ip],
  ports: [
    { name: 'serve-80-tcp', port: 80, protocol: 'TCP' },
    { name: 'serve-80-udp', port: 80, protocol: 'UDP' },
    { name: 'serve-80-sctp', port: 80, protocol: 'SCTP' },
  ],
});

function mkCase(steps: Case['steps']): Case {
  return {
    file: '/inline.json',
    id: 'bridge',
    title: 'bridge',
    tags: [],
    fixture: {
      namespaces: [
        { name: 'bx', labels: { 'kubernetes.io/metadata.name': 'bx', ns: 'bx' } },
        { name: 'by', labels: { 'kubernetes.io/metadata.name': 'by', ns: 'by' } },
      ],
      pods: [pod('bx', 'a', '10.244.0.10'), pod('bx', 'b', '10.244.0.11'), pod('by', 'a', '10.244.1.10')],
    },
    fixtureSource: 'inline',
    pods: ['bx/a', 'bx/b', 'by/a'],
    steps,
  };
}

const COLS = ['bx/a', 'bx/b', 'by/a'];
const allAllowed: [string, string][] = [
  ['bx/a', '-..'],
  ['bx/b', '.-.'],
  ['by/a', '..-'],
];

describe.skipIf(!isRoot)('lab provider over a Linux bridge and a real kube-apiserver', () => {
  let kube: KubeCluster;
  let objects: KubectlObjects;
  let net: BridgePodNetwork;
  let provider: LabProvider;

  beforeAll(async () => {
    kube = await startKube({ controllerManager: true });
    const crds = join(ROOT, 'build/crds');
    for (const f of readdirSync(crds).filter((x) => x.endsWith('.yaml')))
      await kube.kubectl(['apply', '--server-side', '-f', join(crds, f)]);
    objects = new KubectlObjects((args, o) => kube.kubectl(args, o));
    net = new BridgePodNetwork(objects);
    provider = new LabProvider(net, objects, { settleMs: 0, realizeTimeoutMs: 1500, pollMs: 100 });
  });

  afterAll(async () => {
    await net?.close();
    await kube?.stop();
  });

  it('builds Pods with real servers, rewrites IPs, probes TCP and UDP for real, cleans up', async () => {
    const np = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: 'bx' },
      spec: {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{ to: [{ ipBlock: { cidr: '10.244.1.10/32' } }] }],
      },
    };
    const r = await runCase(
      provider,
      mkCase([
        {
          name: 'apply a policy nothing enforces, relabel, patch',
          actions: [
            { op: 'apply', object: np },
            { op: 'setLabels', kind: 'Namespace', name: 'by', labels: { ns: 'by', extra: 'yes' } },
            { op: 'setLabels', kind: 'Pod', namespace: 'bx', name: 'b', labels: { pod: 'b', role: 'x' } },
            {
              op: 'patch',
              kind: 'NetworkPolicy',
              namespace: 'bx',
              name: 'np',
              jsonPatch: [{ op: 'add', path: '/metadata/labels', value: { patched: 'yes' } }],
            },
          ],
          expect: [
            { kind: 'matrix', port: 80, protocol: 'TCP', cols: COLS, rows: allAllowed },
            { kind: 'matrix', port: 80, protocol: 'UDP', cols: COLS, rows: allAllowed },
            {
              kind: 'probes',
              probes: [
                {
                  from: 'bx/a',
                  to: 'by/a',
                  port: 81,
                  protocol: 'TCP',
                  expect: 'reject',
                  why: 'nothing listens: RST',
                },
                {
                  from: 'bx/a',
                  to: 'by/a',
                  port: 81,
                  protocol: 'UDP',
                  expect: 'reject',
                  why: 'port unreachable',
                },
              ],
            },
          ],
        },
      ]),
      { retries: 0, probeTimeoutMs: 1000 },
    );
    expect(r.status, caseLines(r, { verbose: true }).join('\n')).toBe('passed');
    expect(r.cells).toEqual({ checked: 14, mismatched: 0, skipped: 0 });
    // Cleanup deleted the namespaces (kube-controller-manager finalized them) and the policy.
    expect(await objects.exists('v1', 'Namespace', undefined, 'bx')).toBe(false);
    expect(await objects.exists('v1', 'Namespace', undefined, 'by')).toBe(false);
  });

  it('sends the rewritten objects, labels and patches to the API server', async () => {
    const seen: unknown[] = [];
    // Instead of realizing, read back what the API server holds after the step's actions.
    class Snoop extends LabProvider {
      override async waitForRealization(): Promise<void> {
        seen.push(
          (await this.podIPs({ namespace: 'by', name: 'a' }))[0],
          await objects.get({
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            namespace: 'bx',
            name: 'np',
          }),
          await objects.get({ apiVersion: 'v1', kind: 'Namespace', name: 'by' }),
          await objects.get({ apiVersion: 'v1', kind: 'Pod', namespace: 'bx', name: 'b' }),
        );
      }
    }
    const r = await runCase(
      new Snoop(net, objects),
      mkCase([
        {
          actions: [
            {
              op: 'apply',
              object: {
                apiVersion: 'networking.k8s.io/v1',
                kind: 'NetworkPolicy',
                metadata: { name: 'np', namespace: 'bx' },
                spec: {
                  podSelector: {},
                  policyTypes: ['Egress'],
                  egress: [{ to: [{ ipBlock: { cidr: '10.244.1.10/32' } }] }],
                },
              },
            },
            { op: 'setLabels', kind: 'Namespace', name: 'by', labels: { ns: 'by', extra: 'yes' } },
            { op: 'setLabels', kind: 'Pod', namespace: 'bx', name: 'b', labels: { role: 'x' } },
          ],
          expect: [],
        },
      ]),
      { retries: 0 },
    );
    expect(r.error).toBeUndefined();
    const [byA, np, ns, p] = seen as [
      string,
      ...{ spec?: { egress: unknown }; metadata: { labels: unknown } }[],
    ];
    expect(byA).toMatch(/^10\.123\.0\.\d+$/);
    // The literal fixture /32 of by/a became by/a's bridge IP.
    expect(np!.spec!.egress).toEqual([{ to: [{ ipBlock: { cidr: `${byA}/32` } }] }]);
    expect(ns!.metadata.labels).toEqual({ ns: 'by', extra: 'yes', 'kubernetes.io/metadata.name': 'by' });
    expect(p!.metadata.labels).toEqual({ role: 'x' });
    expect(await objects.exists('v1', 'Namespace', undefined, 'bx')).toBe(false);
  });

  it('reports denials nothing enforced as failures, and an Antrea policy that never reports Realized', async () => {
    const deny = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'deny', namespace: 'bx' },
      spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [] },
    };
    const r = await runCase(
      provider,
      mkCase([
        {
          actions: [{ op: 'apply', object: deny }],
          expect: [
            {
              kind: 'matrix',
              port: 80,
              protocol: 'TCP',
              cols: COLS,
              rows: [
                ['bx/a', '-X.'],
                ['bx/b', 'X-.'],
                ['by/a', 'XX-'],
              ],
            },
          ],
        },
        {
          actions: [
            {
              op: 'apply',
              object: {
                apiVersion: 'crd.antrea.io/v1beta1',
                kind: 'ClusterNetworkPolicy',
                metadata: { name: 'never-realized' },
                spec: {
                  priority: 5,
                  appliedTo: [{ podSelector: {} }],
                  ingress: [{ action: 'Drop', from: [{ podSelector: {} }] }],
                },
              },
            },
          ],
          expect: [],
        },
      ]),
      { retries: 0, probeTimeoutMs: 1000 },
    );
    expect(r.status).toBe('failed');
    expect(r.cells).toEqual({ checked: 6, mismatched: 4, skipped: 0 });
    expect(r.steps[1]!.error).toMatch(/^ClusterNetworkPolicy never-realized not Realized after 1500 ms/);
    expect(
      await objects.exists('crd.antrea.io/v1beta1', 'ClusterNetworkPolicy', undefined, 'never-realized'),
    ).toBe(false);
  });
});
