import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@antrea-ts/harness';
import { describe, expect, it } from 'vitest';
import { ConnectivityOracle } from '../../packages/controller/src/testing/connectivity.js';
import { OracleProvider } from '../framework/providers/oracle-provider.js';
import { runCli } from './cli.js';

const NATIVE = join(import.meta.dirname, '..', 'cases', 'antrea-native');

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    args,
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    {
      providers: {
        oracle: { create: async () => new OracleProvider({ oracle: (w) => new ConnectivityOracle(w) }) },
      },
    },
  );
  return { code, out, err };
}

describe('run-cases CLI', () => {
  it('runs a folder and ends with the summary line, exit 0', async () => {
    const r = await cli(['-p', 'oracle', '--retries', '0', NATIVE]);
    expect(r.err).toEqual([]);
    expect(r.out[0]).toBe('running 7 case file(s) on provider oracle');
    expect(r.out.filter((l) => l.startsWith('PASSED '))).toHaveLength(7);
    expect(r.out.at(-1)).toBe('7 passed, 0 failed, 0 skipped');
    expect(r.code).toBe(0);
  });

  it('exits 1 when a case fails and prints its matrices', async () => {
    const dir = makeTempDir('e2e-cli');
    try {
      const file = join(dir.path, 'bad.json');
      writeFileSync(
        file,
        JSON.stringify({
          schema: 'netpol-oracle/v1',
          id: 'bad',
          fixture: {
            namespaces: [{ name: 'x', labels: {} }],
            pods: ['a', 'b'].map((name) => ({
              namespace: 'x',
              name,
              labels: {},
              ips: [],
              ports: [{ port: 80, protocol: 'TCP' }],
            })),
          },
          steps: [
            { actions: [], expect: [{ kind: 'matrix', port: 80, protocol: 'TCP', rows: { 'x/a': '-X' } }] },
          ],
        }),
      );
      const r = await cli(['-p', 'oracle', '--retries', '0', '--no-color', file]);
      expect(r.code).toBe(1);
      expect(r.out).toContain(
        `      x/a   -X        -.${' '.repeat(8)}<- x/b TCP/80: expected deny, got allow`,
      );
      expect(r.out.at(-1)).toBe('0 passed, 1 failed, 0 skipped');
    } finally {
      dir.remove();
    }
  });

  it('lists cases without running them', async () => {
    const r = await cli(['--list', NATIVE]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^antrea-native\/01-tiers-and-priorities {2}4 step\(s\) {2}\//);
  });

  it('exits 2 on usage errors, missing paths and providers without a cluster', async () => {
    expect((await cli([])).code).toBe(2);
    expect((await cli(['--timeout-ms', '0', NATIVE])).code).toBe(2);
    expect((await cli(['-p', 'nope', NATIVE])).code).toBe(2);
    const missing = await cli(['-p', 'oracle', '/nonexistent/cases']);
    expect(missing).toMatchObject({ code: 2, err: ['/nonexistent/cases: not found'] });
    const kind = await cli(['-p', 'kind', '--kube-context', 'kind-absent-e2e', NATIVE]);
    expect(kind.code).toBe(2);
    expect(kind.err[0]).toMatch(/^provider kind: no cluster answers kubectl in context kind-absent-e2e/);
    const dir = makeTempDir('e2e-nolab');
    try {
      const lab = await cli(['-p', 'lab', '--lab-state-dir', dir.path, NATIVE]);
      expect(lab.code).toBe(2);
      expect(lab.err[0]).toMatch(/^provider lab: .*(no lab in|cannot load)/);
    } finally {
      dir.remove();
    }
  });
});
