// The case runner on the real lab: a 2-Node lab (instance 8: lab8-*, lb8*, its own state dir, so
// a developer's lab and the lab's own test, instance 7, can run beside it), Pods made by the lab
// through the real CNI chain into OVS, probes from Pod netns. The policy cases run by default now
// that agents enforce policies; E2E_LAB_POLICY=0 leaves them out (they take about ten minutes).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cachedBinDir, run } from '@antrea-ts/harness';
import { Lab } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCaseFiles, loadCase } from './framework/case-loader.js';
import type { Case } from './framework/case-types.js';
import { e2eLabOptions } from './framework/lab-options.js';
import { labCaseProvider } from './framework/providers/lab-case-provider.js';
import type { LabProvider } from './framework/providers/lab-provider.js';
import { caseLines, summaryLine } from './framework/report.js';
import { runCase, runCaseFiles } from './framework/runner.js';

const ROOT = join(import.meta.dirname, '..');
const SHARED = '/work/shared/netpol-cases';
const options = e2eLabOptions(8);
const isRoot = process.getuid?.() === 0;

/** Every pair allowed on TCP/80 and UDP/81, over the shared xyz-abc fixture: pure connectivity. */
function connectivityCase(): Case {
  const base = loadCase(join(ROOT, 'e2e/cases/antrea-native/01-tiers-and-priorities.json'));
  const all = base.pods.map((from): [string, string] => [
    from,
    base.pods.map((to) => (to === from ? '-' : '.')).join(''),
  ]);
  return {
    ...base,
    id: 'lab/connectivity',
    title: 'every Pod reaches every Pod on TCP/80 and UDP/81, on one Node and across Nodes',
    steps: [
      {
        actions: [],
        expect: [
          { kind: 'matrix', port: 80, protocol: 'TCP', cols: base.pods, rows: all },
          { kind: 'matrix', port: 81, protocol: 'UDP', cols: base.pods, rows: all },
          {
            kind: 'probes',
            probes: [
              {
                from: 'x/a',
                to: 'z/c',
                port: 82,
                protocol: 'TCP',
                expect: 'reject',
                why: 'nothing listens: RST',
              },
              {
                from: 'x/a',
                to: 'z/c',
                port: 82,
                protocol: 'UDP',
                expect: 'reject',
                why: 'port unreachable',
              },
            ],
          },
        ],
      },
    ],
  };
}

describe.skipIf(!isRoot)('case runner on the lab', () => {
  let lab: Lab;
  let provider: LabProvider;

  beforeAll(async () => {
    await promisify(execFile)(
      'npx',
      ['tsc', '-b', 'cmd/antrea-agent', 'cmd/antrea-cni', 'cmd/antrea-controller'],
      {
        cwd: ROOT,
      },
    );
    await Lab.down(options);
    // The admin-network-policy cases need antrea-controller's AdminNetworkPolicy gate (off by default).
    lab = await Lab.up({ ...options, nodes: 2, controllerFeatureGates: { AdminNetworkPolicy: true } });
    provider = labCaseProvider(lab);
  });

  afterAll(async () => {
    if (!process.env.KEEP_LAB) await Lab.down(options);
  });

  it('passes the connectivity case through Pods the lab made, and leaves the lab as it found it', async () => {
    const r = await runCase(provider, connectivityCase(), { retries: 2, probeTimeoutMs: 2000 });
    expect(r.status, caseLines(r, { verbose: true }).join('\n')).toBe('passed');
    expect(r.cells).toEqual({ checked: 146, mismatched: 0, skipped: 0 });
    expect(r.cleanupError).toBeUndefined();
    expect(lab.state.pods).toEqual([]);
    const nss = await run([
      join(cachedBinDir(), 'kubectl'),
      '--kubeconfig',
      lab.kubeconfigPath,
      'get',
      'ns',
      '-o',
      'name',
    ]);
    expect(nss.split('\n').filter((n) => /^namespace\/[xyz]$/.test(n))).toEqual([]);
  });

  it.skipIf(process.env.E2E_LAB_POLICY === '0')(
    'passes every shared and Antrea-native case',
    async () => {
      const files = findCaseFiles([SHARED, join(ROOT, 'e2e/cases')]);
      const lines: string[] = [];
      const s = await runCaseFiles(provider, files, { onCase: (r) => lines.push(...caseLines(r)) });
      expect(s.failed, `${lines.join('\n')}\n${summaryLine(s)}`).toBe(0);
    },
    3_600_000,
  ); // 19 cases of 9 Pods each through the real CNI chain
});
