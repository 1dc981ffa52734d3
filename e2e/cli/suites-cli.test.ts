import { describe, expect, it } from 'vitest';
import type { ClusterProvider } from '../framework/provider.js';
import { runSuitesCli } from './suites-cli.js';

/** A provider with Namespaces and Node names only: Pod creation fails, so checks that run fail. */
function bareProvider(calls: string[]): ClusterProvider {
  const no = () => Promise.reject(new Error('not in this stub'));
  return {
    name: 'stub',
    supports: () => true,
    createNamespace: async (name) => {
      calls.push(`createNamespace ${name.replace(/-[0-9a-f]{6}$/, '')}`);
      return { created: true };
    },
    deleteNamespace: async (name, options) => {
      calls.push(
        `deleteNamespace ${name.replace(/-[0-9a-f]{6}$/, '')}${options?.wait === false ? ' (no wait)' : ''}`,
      );
    },
    createPod: async (spec) => {
      calls.push(`createPod ${spec.name}`);
      throw new Error(`no Pods here (${spec.name})`);
    },
    deletePod: no,
    podIPs: no,
    apply: no,
    delete: no,
    patch: no,
    setLabels: no,
    probe: no,
    listNodes: async () => ['n1', 'n2'],
  };
}

async function cli(args: string[], calls: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSuitesCli(
    args,
    { out: (l) => out.push(l), err: (l) => err.push(l) },
    { providers: { lab: { create: async () => bareProvider(calls) } } },
  );
  return { code, out, err };
}

describe('run-suites CLI', () => {
  it('lists every check with what it needs', async () => {
    const r = await cli(['--list']);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(10);
    expect(r.out).toContain(
      'nodes: a Node added runs connected Pods; removed, its Pods go and the rest stay connected  [needs listNodes, addNode, removeNode]',
    );
  });

  it('skips the checks a provider has no capability for, and exits 0 when nothing failed', async () => {
    const calls: string[] = [];
    const r = await cli(['-s', 'nodes', 'restarts'], calls);
    expect(r.out.filter((l) => l.startsWith('SKIPPED'))).toHaveLength(4);
    expect(r.out[0]).toMatch(/^SKIPPED nodes: .* \(provider stub has no addNode, removeNode\)$/);
    expect(r.out.at(-1)).toBe('0 passed, 0 failed, 4 skipped');
    expect(r.code).toBe(0);
    expect(calls).toEqual([]);
  });

  it('reports a failing check with its message, cleans its Namespace up, exits 1', async () => {
    const calls: string[] = [];
    const r = await cli(['-s', 'connectivity'], calls);
    expect(r.code).toBe(1);
    expect(r.out[0]).toMatch(/^FAILED {2}connectivity: Pods reach Pods on the same Node/);
    expect(r.out[1]).toMatch(/^ {2}no Pods here/);
    expect(r.out.at(-1)).toBe('0 passed, 1 failed, 2 skipped');
    // The check only requests the deletion; the CLI waits for it once all checks ran.
    expect(calls.filter((c) => c.includes('Namespace'))).toEqual([
      'createNamespace e2e-conn',
      'deleteNamespace e2e-conn (no wait)',
      'deleteNamespace e2e-conn',
    ]);
  });

  it('exits 2 on a bad option and when the provider cannot start', async () => {
    expect((await cli(['-s', 'nope'])).code).toBe(2);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runSuitesCli(
      ['-p', 'kind', '--kube-context', 'kind-absent-e2e'],
      { out: (l) => out.push(l), err: (l) => err.push(l) },
      {},
    );
    expect(code).toBe(2);
    expect(err[0]).toMatch(/^provider kind: no cluster answers kubectl/);
  });
});
