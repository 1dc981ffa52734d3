// Every shared netpol-oracle/v1 case and every Antrea-native case of this suite, run through the
// case runner with the oracle provider: the runner end to end (load, set up, rewrite IPs, act,
// probe, compare, clean up) against our controller's computation, without packets.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConnectivityOracle } from '../packages/controller/src/testing/connectivity.js';
import { findCaseFiles, loadCase } from './framework/case-loader.js';
import { OracleProvider } from './framework/providers/oracle-provider.js';
import { caseLines, summaryLine } from './framework/report.js';
import { runCase, runCaseFiles } from './framework/runner.js';

const SHARED = '/work/shared/netpol-cases';
const NATIVE = join(import.meta.dirname, 'cases');

function provider() {
  return new OracleProvider({ oracle: (w) => new ConnectivityOracle(w) });
}

const opts = { retries: 0, probeTimeoutMs: 1 };

describe.skipIf(!existsSync(SHARED))('shared cases through the runner (oracle provider)', () => {
  for (const file of existsSync(SHARED) ? findCaseFiles([SHARED]) : []) {
    it(file.slice(SHARED.length + 1), async () => {
      const p = provider();
      const s = await runCaseFiles(p, [file], opts);
      const r = s.cases[0]!;
      expect(r.status, caseLines(r).join('\n')).toBe('passed');
      expect(r.cells.checked).toBeGreaterThan(0);
      expect(p.counts()).toEqual({ namespaces: 0, pods: 0, objects: 0 });
    });
  }

  it('fails when one expected cell is flipped (the chain can fail)', async () => {
    const c = loadCase(join(SHARED, 'k8s-e2e/34-egress-ipblock.json'));
    const m = c.steps[0]!.expect[0]!;
    if (m.kind !== 'matrix') throw new Error('expected a matrix');
    // x/a -> y/b is allowed through the ${ip:y/b}/32 ipBlock; claim it is denied.
    m.rows[0] = ['x/a', '-XXXXXXXX'];
    const r = await runCase(provider(), c, opts);
    expect(r.status).toBe('failed');
    expect(r.cells.mismatched).toBe(1);
    expect(caseLines(r).join('\n')).toContain('y/b TCP/80: expected deny, got allow');
  });

  it('runs the whole folder in one provider and sums up', async () => {
    const files = findCaseFiles([SHARED]);
    const s = await runCaseFiles(provider(), files, opts);
    expect(summaryLine(s)).toBe(`${files.length} passed, 0 failed, 0 skipped`);
  });
});

describe('Antrea-native cases (oracle provider)', () => {
  for (const file of findCaseFiles([NATIVE])) {
    it(file.slice(NATIVE.length + 1), async () => {
      const p = provider();
      const s = await runCaseFiles(p, [file], opts);
      const r = s.cases[0]!;
      expect(r.status, caseLines(r, { verbose: true }).join('\n')).toBe('passed');
      expect(p.counts()).toEqual({ namespaces: 0, pods: 0, objects: 0 });
    });
  }
});
