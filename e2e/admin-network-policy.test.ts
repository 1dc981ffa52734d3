// AdminNetworkPolicy and BaselineAdminNetworkPolicy as users see them, on a 2-Node lab (instance 37)
// whose antrea-controller has featureGates.AdminNetworkPolicy on: the CRDs' validation by
// kube-apiserver and `antctl get networkpolicy` naming their source type. Their behaviour on real
// packets (ANP before K8s NetworkPolicies, priority order, Pass, the BANP after them, ports) is in
// the cases of e2e/cases/admin-network-policy, which e2e/lab-cases.test.ts runs with every other case.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cachedBinDir } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';

const ROOT = join(import.meta.dirname, '..');
const options = e2eLabOptions(37);
const isRoot = process.getuid?.() === 0;
const exec = promisify(execFile);

describe.skipIf(!isRoot)('AdminNetworkPolicy on the lab', () => {
  let lab: Lab;

  const kubectl = (args: string[], input?: string) =>
    new Promise<{ code: number; out: string }>((resolve) => {
      const child = execFile(
        join(cachedBinDir(), 'kubectl'),
        ['--kubeconfig', lab.kubeconfigPath, ...args],
        { timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
      );
      if (input !== undefined) child.stdin?.end(input);
    });

  async function antctl(args: string[]): Promise<string> {
    const { stdout } = await exec(
      'node',
      [join(ROOT, 'dist/cmd/antctl/main.js'), '--kubeconfig', lab.kubeconfigPath, ...args],
      { timeout: 90_000 },
    );
    return stdout;
  }

  beforeAll(async () => {
    await exec(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/antctl'],
      { cwd: ROOT },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2, controllerFeatureGates: { AdminNetworkPolicy: true } });
  }, 600_000);

  afterAll(async () => {
    if (!process.env['KEEP_LAB']) await Lab.down(options);
  }, 120_000);

  it('kube-apiserver refuses a BANP not named default and an ANP priority above 1000', async () => {
    const banp = {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'BaselineAdminNetworkPolicy',
      metadata: { name: 'other' },
      spec: { subject: { namespaces: {} } },
    };
    const refused = await kubectl(['apply', '-f', '-'], JSON.stringify(banp));
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain('Only one baseline admin network policy with metadata.name="default"');
    const anp = {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'AdminNetworkPolicy',
      metadata: { name: 'too-low' },
      spec: { priority: 1001, subject: { namespaces: {} } },
    };
    const tooLow = await kubectl(['apply', '-f', '-'], JSON.stringify(anp));
    expect(tooLow.code).not.toBe(0);
    expect(tooLow.out).toContain('spec.priority');
  });

  it('antctl get networkpolicy names ANPs and the BANP by their source type, in their tiers', async () => {
    const subject = { namespaces: { matchLabels: { 'kubernetes.io/metadata.name': 'anp-antctl' } } };
    const objects = [
      {
        apiVersion: 'policy.networking.k8s.io/v1alpha1',
        kind: 'AdminNetworkPolicy',
        metadata: { name: 'anp-antctl' },
        spec: {
          priority: 42,
          subject,
          ingress: [{ name: 'deny-all', action: 'Deny', from: [{ namespaces: {} }] }],
        },
      },
      {
        apiVersion: 'policy.networking.k8s.io/v1alpha1',
        kind: 'BaselineAdminNetworkPolicy',
        metadata: { name: 'default' },
        spec: { subject, egress: [{ name: 'allow-all', action: 'Allow', to: [{ namespaces: {} }] }] },
      },
    ];
    for (const o of objects) expect((await kubectl(['apply', '-f', '-'], JSON.stringify(o))).code).toBe(0);
    try {
      type Item = {
        sourceRef: { type: string; name: string };
        tierPriority?: number;
        priority?: number;
        rules: { action?: string; name?: string }[];
      };
      let items: Item[] = [];
      for (let i = 0; i < 60; i++) {
        items = (JSON.parse(await antctl(['get', 'networkpolicy', '-o', 'json'])) as Item[]).filter((p) =>
          ['AdminNetworkPolicy', 'BaselineAdminNetworkPolicy'].includes(p.sourceRef.type),
        );
        if (items.length === 2) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const byType = new Map(items.map((p) => [p.sourceRef.type, p]));
      expect(byType.get('AdminNetworkPolicy')).toMatchObject({
        sourceRef: { name: 'anp-antctl' },
        tierPriority: 251,
        priority: 42,
        rules: [{ action: 'Drop', name: 'deny-all' }],
      });
      expect(byType.get('BaselineAdminNetworkPolicy')).toMatchObject({
        sourceRef: { name: 'default' },
        tierPriority: 254,
        priority: 1,
        rules: [{ action: 'Allow', name: 'allow-all' }],
      });
      const table = await antctl(['get', 'networkpolicy', '-T', 'ANP']);
      expect(table).toContain('AdminNetworkPolicy:/anp-antctl');
      expect(table).not.toContain('BaselineAdminNetworkPolicy');
    } finally {
      await kubectl([
        'delete',
        'adminnetworkpolicies.policy.networking.k8s.io',
        'anp-antctl',
        '--ignore-not-found',
      ]);
      await kubectl([
        'delete',
        'baselineadminnetworkpolicies.policy.networking.k8s.io',
        'default',
        '--ignore-not-found',
      ]);
    }
  });
});
