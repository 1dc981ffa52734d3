// The e2e suites (e2e/suites/) on the lab provider, as CI runs them: one 2-Node lab for the whole
// file (instance 17: lab17-*, lb17*, its own state dir), Nodes with a /28 podCIDR (13 Pod IPs) so
// that the churn check sees IPs handed out again in its second round, every check through the ClusterProvider interface only.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cachedBinDir } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from './framework/lab-options.js';
import { kubectlCommand } from './framework/providers/kind.js';
import { KubectlObjects } from './framework/providers/kubectl-objects.js';
import { LabClusterProvider } from './framework/providers/lab-cluster-provider.js';
import { allChecks } from './suites/all.js';
import { type CheckContext, finishNamespaceDeletions, missingCapabilities } from './suites/check.js';

const ROOT = join(import.meta.dirname, '..');
const options = e2eLabOptions(17);
const isRoot = process.getuid?.() === 0;
const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe.skipIf(!isRoot)('e2e suites on the lab provider', () => {
  let lab: Lab;
  let ctx: CheckContext;

  beforeAll(async () => {
    await promisify(execFile)(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller', 'cmd/antctl'],
      { cwd: ROOT },
    );
    await Lab.down(options);
    lab = await Lab.up({ ...options, nodes: 2, nodeCidrMaskSize: 28 });
    const objects = new KubectlObjects(
      kubectlCommand({
        kubectl: join(cachedBinDir(), 'kubectl'),
        kubeconfig: lab.kubeconfigPath,
        timeoutMs: 180_000,
      }),
    );
    const provider = new LabClusterProvider(lab, objects, {
      antctlMain: join(ROOT, 'dist/cmd/antctl/main.js'),
      settleMs: 500,
    });
    // Checks leave their Namespaces terminating; the last test waits for all of them.
    ctx = { provider, log: (line) => log.info(line), deleting: [] };
  }, 300_000);

  afterAll(async () => {
    if (!process.env.KEEP_LAB) await Lab.down(options);
  }, 120_000);

  it('the lab provider has every optional capability the suites use', () => {
    const p = new LabClusterProvider({} as never, {} as never, { antctlMain: '' });
    expect(allChecks().flatMap((c) => missingCapabilities(p, c))).toEqual([]);
  });

  for (const check of allChecks()) it(`${check.suite}: ${check.name}`, () => check.run(ctx), check.timeoutMs);

  it('leaves no Pod, no Namespace and no extra Node behind', async () => {
    expect(lab.state.pods).toEqual([]);
    expect(lab.state.nodes.map((n) => n.name)).toEqual(['lab17-node-1', 'lab17-node-2']);
    expect(ctx.deleting?.length).toBeGreaterThan(5);
    await finishNamespaceDeletions(ctx);
    const names = await lab.kubectl(['get', 'namespaces', '-o', 'jsonpath={.items[*].metadata.name}']);
    expect(names.split(' ').filter((n) => n.startsWith('e2e-'))).toEqual([]);
  }, 120_000);
});
