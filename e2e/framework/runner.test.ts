// The runner against a scripted provider: what it asks the cluster to do, in which order, and how
// it turns probe outcomes into passed / failed / skipped.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '@antrea-ts/harness';
import { describe, expect, it } from 'vitest';
import type { Case, FixturePod, KubeObject, Protocol } from './case-types.js';
import { E2eError } from './errors.js';
import type { ClusterProvider, ObjectRef, PodRef, PodSpec, ProbeOutcome, ProbeTarget } from './provider.js';
import { caseLines, summaryLine } from './report.js';
import { runCase, runCaseFiles } from './runner.js';

type Verdict = (from: string, to: string, port: number, protocol: Protocol) => ProbeOutcome;

/** Records every call; probes answer from a verdict function over pod keys. */
class ScriptedProvider implements ClusterProvider {
  readonly name = 'scripted';
  calls: string[] = [];
  applied: KubeObject[] = [];
  probes = 0;
  existingNamespaces = new Set<string>();
  failOn?: string;
  private ip = 0;
  constructor(
    public verdict: Verdict = () => 'allow',
    private readonly protocols: Protocol[] = ['TCP', 'UDP'],
    batch = false,
  ) {
    if (!batch) this.probeMany = undefined;
  }
  private log(s: string) {
    this.calls.push(s);
    if (this.failOn && s.startsWith(this.failOn)) throw new E2eError('E2E_PROVIDER', `refused ${s}`);
  }
  supports(p: Protocol) {
    return this.protocols.includes(p);
  }
  async createNamespace(name: string, labels: Record<string, string>) {
    this.log(`createNamespace ${name} ${JSON.stringify(labels)}`);
    return { created: !this.existingNamespaces.has(name) };
  }
  async deleteNamespace(name: string) {
    this.log(`deleteNamespace ${name}`);
  }
  async createPod(spec: PodSpec) {
    this.log(`createPod ${spec.namespace}/${spec.name}${spec.node ? ` on ${spec.node}` : ''}`);
    return { ips: [`10.10.0.${++this.ip}`] };
  }
  async deletePod(ref: PodRef) {
    this.log(`deletePod ${ref.namespace}/${ref.name}`);
  }
  async podIPs() {
    return [];
  }
  async apply(o: KubeObject) {
    this.log(`apply ${o.apiVersion} ${o.kind} ${o.metadata.name}`);
    this.applied.push(o);
  }
  async delete(r: ObjectRef) {
    this.log(`delete ${r.apiVersion} ${r.kind} ${r.namespace ?? ''}/${r.name}`);
  }
  async patch(r: ObjectRef) {
    this.log(`patch ${r.apiVersion} ${r.kind} ${r.name}`);
  }
  async setLabels(r: { kind: string; name: string }, labels: Record<string, string>) {
    this.log(`setLabels ${r.kind} ${r.name} ${JSON.stringify(labels)}`);
  }
  async waitForRealization() {
    this.log('realize');
  }
  async probe(from: PodRef, to: PodRef, port: number, protocol: Protocol) {
    this.probes++;
    return this.verdict(`${from.namespace}/${from.name}`, `${to.namespace}/${to.name}`, port, protocol);
  }
  probeMany?: (from: PodRef, targets: readonly ProbeTarget[]) => Promise<ProbeOutcome[]> = async (
    from,
    targets,
  ) => {
    this.log(`probeMany ${from.namespace}/${from.name} x${targets.length}`);
    return targets.map((t) => {
      this.probes++;
      return this.verdict(
        `${from.namespace}/${from.name}`,
        `${t.to.namespace}/${t.to.name}`,
        t.port,
        t.protocol,
      );
    });
  };
}

const pod = (ns: string, name: string, ip: string, node?: string): FixturePod => ({
  namespace: ns,
  name,
  labels: { pod: name },
  ips: [ip],
  ...(node ? { node } : {}),
  ports: [{ port: 80, protocol: 'TCP' }],
});

function mkCase(steps: Case['steps'], over: Partial<Case> = {}): Case {
  const fixture = {
    namespaces: [
      { name: 'x', labels: { ns: 'x' } },
      { name: 'y', labels: { ns: 'y' } },
    ],
    pods: [pod('x', 'a', '10.244.0.10', 'n1'), pod('x', 'b', '10.244.0.11'), pod('y', 'a', '10.244.1.10')],
  };
  return {
    file: '/cases/c.json',
    id: 'c',
    title: 't',
    tags: [],
    fixture,
    fixtureSource: 'inline',
    pods: ['x/a', 'x/b', 'y/a'],
    steps,
    ...over,
  };
}

const COLS = ['x/a', 'x/b', 'y/a'];
const matrix = (rows: [string, string][], protocol: Protocol = 'TCP', port = 80) => ({
  kind: 'matrix' as const,
  port,
  protocol,
  cols: COLS,
  rows,
});
const FULL: [string, string][] = [
  ['x/a', '-X.'],
  ['x/b', 'X-.'],
  ['y/a', 'X.-'],
];
// Denied: anything into x/a, and x/a -> x/b.
const truth: Verdict = (f, t) => (t === 'x/a' || (f === 'x/a' && t === 'x/b') ? 'drop' : 'allow');
const fast = { retries: 0, settleMs: 0 };

describe('runCase', () => {
  it('builds namespaces and pods, applies with real IPs, probes every checked cell, passes', async () => {
    const p = new ScriptedProvider(truth);
    const policy = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: 'x' },
      spec: {
        egress: [{ to: [{ ipBlock: { cidr: `\${ip:y/a}/32` } }, { ipBlock: { cidr: '10.244.0.11/32' } }] }],
      },
    };
    const r = await runCase(
      p,
      mkCase([{ actions: [{ op: 'apply', object: policy }], expect: [matrix(FULL)] }]),
      fast,
    );
    expect(r.status).toBe('passed');
    expect(r.cells).toEqual({ checked: 6, mismatched: 0, skipped: 0 });
    expect(p.probes).toBe(6);
    expect(p.calls.slice(0, 5)).toEqual([
      'createNamespace x {"ns":"x"}',
      'createNamespace y {"ns":"y"}',
      'createPod x/a on n1',
      'createPod x/b',
      'createPod y/a',
    ]);
    // Pods got 10.10.0.1..3 in fixture order: y/a is .3, x/b is .2.
    expect(p.applied[0]!.spec).toEqual({
      egress: [{ to: [{ ipBlock: { cidr: '10.10.0.3/32' } }, { ipBlock: { cidr: '10.10.0.2/32' } }] }],
    });
    expect(p.calls.slice(5)).toEqual([
      'apply networking.k8s.io/v1 NetworkPolicy np',
      'realize',
      'delete networking.k8s.io/v1 NetworkPolicy x/np',
      'deleteNamespace x',
      'deleteNamespace y',
    ]);
    expect(caseLines(r).at(-1)).toBe('PASSED c (6 cells checked, 0 mismatched)');
  });

  it('fails on a mismatch and shows observed next to expected with the cell marked', async () => {
    const p = new ScriptedProvider((f, t) =>
      f === 'y/a' && t === 'x/b' ? 'reject' : truth(f, t, 80, 'TCP'),
    );
    const r = await runCase(p, mkCase([{ actions: [], expect: [matrix(FULL)] }]), fast);
    expect(r.status).toBe('failed');
    expect(r.cells.mismatched).toBe(1);
    const lines = caseLines(r);
    expect(lines).toContain('      y/a   X.-       XX-       <- x/b TCP/80: expected allow, got reject');
    expect(lines).toContain(`${' '.repeat(23)}^`);
    expect(lines).toContain('      x/a   -X.       -X.');
    expect(lines.at(-1)).toBe('FAILED c (6 cells checked, 1 mismatched)');
  });

  it('probes again after a mismatch, like the upstream suite, and passes once it converges', async () => {
    let round = 0;
    const p = new ScriptedProvider((f, t, port, proto) => (round++ < 6 ? 'allow' : truth(f, t, port, proto)));
    const sleeps: number[] = [];
    const r = await runCase(p, mkCase([{ actions: [], expect: [matrix(FULL)] }]), {
      retries: 2,
      retryDelayMs: 250,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    expect(r.status).toBe('passed');
    expect(r.attempts).toBe(2);
    expect(sleeps).toEqual([250]);
    expect(p.probes).toBe(6 + 3); // the second round re-probes only the 3 mismatched cells
  });

  it('counts SCTP as skipped, never passed; a failure elsewhere still fails the case', async () => {
    const p = new ScriptedProvider(truth);
    const sctpOnly = await runCase(p, mkCase([{ actions: [], expect: [matrix(FULL, 'SCTP')] }]), fast);
    expect(sctpOnly.status).toBe('skipped');
    expect(sctpOnly.cells).toEqual({ checked: 0, mismatched: 0, skipped: 6 });
    expect(caseLines(sctpOnly)).toContain('    SCTP/80 skipped (SCTP not supported by provider scripted)');

    const mixed = await runCase(
      p,
      mkCase([{ actions: [], expect: [matrix(FULL), matrix(FULL, 'SCTP')] }]),
      fast,
    );
    expect(mixed.status).toBe('skipped');
    expect(mixed.cells.checked).toBe(6);

    const bad: [string, string][] = [['x/a', '-..']];
    const failing = await runCase(
      p,
      mkCase([{ actions: [], expect: [matrix(bad), matrix(FULL, 'SCTP')] }]),
      fast,
    );
    expect(failing.status).toBe('failed');

    const probes = await runCase(
      p,
      mkCase([
        {
          actions: [],
          expect: [
            {
              kind: 'probes',
              probes: [
                { from: 'x/b', to: 'x/a', port: 80, protocol: 'TCP', expect: 'drop' },
                { from: 'x/b', to: 'x/a', port: 80, protocol: 'SCTP', expect: 'drop' },
              ],
            },
          ],
        },
      ]),
      fast,
    );
    expect(probes.status).toBe('skipped');
    expect(probes.cells).toEqual({ checked: 1, mismatched: 0, skipped: 1 });
  });

  it('tells deny from drop and reject in probe expectations', async () => {
    const p = new ScriptedProvider((_f, t) => (t === 'x/a' ? 'reject' : 'drop'));
    const probe = (to: string, expect: 'deny' | 'drop' | 'reject') => ({
      from: 'y/a',
      to,
      port: 80,
      protocol: 'TCP' as const,
      expect,
    });
    const r = await runCase(
      p,
      mkCase([
        {
          actions: [],
          expect: [
            {
              kind: 'probes',
              probes: [
                probe('x/a', 'deny'),
                probe('x/a', 'reject'),
                probe('x/b', 'deny'),
                probe('x/b', 'reject'),
              ],
            },
          ],
        },
      ]),
      fast,
    );
    const x = r.steps[0]!.expectations[0]!;
    expect(x.kind === 'probes' && x.cells.map((c) => c.ok)).toEqual([true, true, true, false]);
    expect(r.status).toBe('failed');
    expect(caseLines(r)).toContain('      FAIL y/a -> x/b TCP/80 expected reject, observed drop');
  });

  it('batches probes per source Pod when the provider has probeMany', async () => {
    const p = new ScriptedProvider(truth, ['TCP'], true);
    const r = await runCase(p, mkCase([{ actions: [], expect: [matrix(FULL)] }]), fast);
    expect(r.status).toBe('passed');
    expect(p.calls.filter((c) => c.startsWith('probeMany')).sort()).toEqual([
      'probeMany x/a x2',
      'probeMany x/b x2',
      'probeMany y/a x2',
    ]);
  });

  it('marks cells naming a Pod that is gone as errors', async () => {
    const p = new ScriptedProvider(truth);
    const r = await runCase(
      p,
      mkCase([{ actions: [{ op: 'deletePod', namespace: 'y', name: 'a' }], expect: [matrix(FULL)] }]),
      fast,
    );
    expect(r.status).toBe('failed');
    const x = r.steps[0]!.expectations[0]!;
    expect(x.kind === 'matrix' && x.rows.map((row) => row.observed)).toEqual(['-XE', 'X-E', 'EE-']);
  });

  it('stops at a failing action, and still cleans up in order: namespaced, cluster-scoped, pods, namespaces', async () => {
    const p = new ScriptedProvider(truth);
    p.existingNamespaces.add('y'); // not ours: keep it, delete our Pod in it
    p.failOn = 'setLabels';
    const tier = { apiVersion: 'crd.antrea.io/v1beta1', kind: 'Tier', metadata: { name: 't1' } };
    const acnp = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: { name: 'c1' },
    };
    const annp = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'NetworkPolicy',
      metadata: { name: 'n1', namespace: 'x' },
    };
    const r = await runCase(
      p,
      mkCase([
        {
          actions: [
            { op: 'apply', object: tier },
            { op: 'apply', object: acnp },
            { op: 'apply', object: annp },
            { op: 'delete', kind: 'NetworkPolicy', namespace: 'x', name: 'n1' },
            { op: 'apply', object: annp },
            { op: 'patch', kind: 'NetworkPolicy', namespace: 'x', name: 'n1', jsonPatch: [] },
          ],
          expect: [matrix(FULL)],
        },
        {
          actions: [{ op: 'setLabels', kind: 'Namespace', name: 'x', labels: {} }],
          expect: [matrix(FULL)],
        },
        { actions: [], expect: [matrix(FULL)] },
      ]),
      fast,
    );
    expect(r.status).toBe('failed');
    expect(r.steps.map((s) => s.status)).toEqual(['passed', 'failed']);
    expect(r.steps[1]!.error).toBe('refused setLabels Namespace x {}');
    const after = p.calls.slice(p.calls.indexOf('setLabels Namespace x {}') + 1);
    expect(after).toEqual([
      'delete crd.antrea.io/v1beta1 NetworkPolicy x/n1',
      'delete crd.antrea.io/v1beta1 ClusterNetworkPolicy /c1',
      'delete crd.antrea.io/v1beta1 Tier /t1',
      'deletePod y/a',
      'deleteNamespace x',
    ]);
    // delete and patch found the Antrea apiVersion from what was applied, not the K8s default.
    expect(p.calls).toContain('patch crd.antrea.io/v1beta1 NetworkPolicy n1');
    expect(p.calls).toContain('delete crd.antrea.io/v1beta1 NetworkPolicy x/n1');
  });

  it('lets every Pod creation finish before failing setup, so cleanup deletes the slow ones', async () => {
    const p = new ScriptedProvider(truth);
    p.existingNamespaces.add('y');
    const create = p.createPod.bind(p);
    p.createPod = async (spec) => {
      if (spec.name === 'b') throw new E2eError('E2E_PROVIDER', 'no IP for x/b');
      if (spec.namespace === 'y') await new Promise((r) => setTimeout(r, 20));
      return create(spec);
    };
    const r = await runCase(p, mkCase([{ actions: [], expect: [matrix(FULL)] }]), fast);
    expect(r).toMatchObject({ status: 'failed', error: 'no IP for x/b', steps: [] });
    expect(p.calls.slice(-2)).toEqual(['deletePod y/a', 'deleteNamespace x']);
  });

  it('waits the settle time when the provider cannot tell realization', async () => {
    const p = new ScriptedProvider(truth);
    (p as { waitForRealization?: unknown }).waitForRealization = undefined;
    const sleeps: number[] = [];
    await runCase(
      p,
      mkCase([
        { actions: [], expect: [] },
        { actions: [], expect: [] },
      ]),
      {
        settleMs: 1234,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      },
    );
    expect(sleeps).toEqual([1234, 1234]);
  });

  it('reports an IP mapping it cannot do as a failed step, not as a test of something else', async () => {
    const p = new ScriptedProvider(truth);
    const policy = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: 'x' },
      spec: { ipBlock: { cidr: '10.10.0.0/24' } }, // held no fixture Pod, holds every real one
    };
    const r = await runCase(p, mkCase([{ actions: [{ op: 'apply', object: policy }], expect: [] }]), fast);
    expect(r.status).toBe('failed');
    expect(r.steps[0]!.error).toMatch(/CIDR 10\.10\.0\.0\/24 cannot be rewritten/);
  });
});

describe('runCaseFiles', () => {
  it('runs files in order, counts a file that does not load as failed, ends with the summary', async () => {
    const dir = makeTempDir('e2e-run');
    try {
      const good = join(dir.path, 'a.json');
      const c = mkCase([{ actions: [], expect: [matrix(FULL)] }]);
      writeFileSync(
        good,
        JSON.stringify({
          schema: 'netpol-oracle/v1',
          id: 'good',
          fixture: c.fixture,
          steps: [
            {
              actions: [],
              expect: [{ kind: 'matrix', port: 80, protocol: 'TCP', rows: Object.fromEntries(FULL) }],
            },
          ],
        }),
      );
      const sctp = join(dir.path, 'b.json');
      writeFileSync(
        sctp,
        JSON.stringify({
          schema: 'netpol-oracle/v1',
          id: 'sctp',
          fixture: c.fixture,
          steps: [
            {
              actions: [],
              expect: [{ kind: 'matrix', port: 80, protocol: 'SCTP', rows: Object.fromEntries(FULL) }],
            },
          ],
        }),
      );
      const broken = join(dir.path, 'c.json');
      writeFileSync(broken, '{"schema":"netpol-oracle/v1"}');
      const seen: string[] = [];
      const s = await runCaseFiles(new ScriptedProvider(truth), [good, sctp, broken], {
        ...fast,
        onCase: (r) => seen.push(`${r.id} ${r.status}`),
      });
      expect(seen).toEqual(['good passed', 'sctp skipped', `${broken} failed`]);
      expect(s.cases[2]!.error).toBe(`${broken}: $.id: expected a non-empty string, got nothing`);
      expect(summaryLine(s)).toBe('1 passed, 1 failed, 1 skipped');
    } finally {
      dir.remove();
    }
  });
});
