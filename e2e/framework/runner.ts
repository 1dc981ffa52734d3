// The case runner: builds a case's Namespaces and Pods through a ClusterProvider, applies each step's
// actions in order, waits for realization, probes every checked cell and compares. It returns
// results only; printing belongs to report.ts and the CLI.
import { loadCase } from './case-loader.js';
import {
  type Action,
  type Case,
  type Expectation,
  type FixturePod,
  type KubeObject,
  type ProbeExpect,
  type Protocol,
  podKey,
  splitPodKey,
} from './case-types.js';
import { E2eError } from './errors.js';
import { IpMapping } from './ip-mapping.js';
import { defaultApiVersion, isClusterScoped } from './kinds.js';
import { mapLimit } from './limit.js';
import type { ClusterProvider, ObjectRef, PodRef, ProbeOutcome, ProbeTarget } from './provider.js';

export interface RunnerOptions {
  /** Per-probe timeout: a probe with no answer by then is a drop. */
  probeTimeoutMs?: number;
  /** Probes in flight at once (probeMany batches count as one). */
  concurrency?: number;
  /** Wait after a step's actions when the provider has no waitForRealization(). */
  settleMs?: number;
  /**
   * Mismatched cells are probed again up to this many times, retryDelayMs apart, like the upstream
   * netpol e2e suite does: realization is eventually consistent on a real cluster. 0 for the oracle.
   */
  retries?: number;
  retryDelayMs?: number;
  signal?: AbortSignal;
  /** Injected for tests; defaults to setTimeout. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type Status = 'passed' | 'failed' | 'skipped';

export interface Cell {
  from: string;
  to: string;
  port: number;
  protocol: Protocol;
  expect: ProbeExpect;
  why?: string;
  /** Undefined when the cell was skipped (protocol not supported). */
  observed?: ProbeOutcome;
  ok?: boolean;
}

export interface MatrixResult {
  kind: 'matrix';
  port: number;
  protocol: Protocol;
  cols: string[];
  /** Per source row: the expected line, the observed line (`.`, `X`, `E`, `-`), and the cells. */
  rows: { from: string; expected: string; observed: string; cells: (Cell | undefined)[] }[];
  status: Status;
  skipReason?: string;
}

export interface ProbesResult {
  kind: 'probes';
  cells: Cell[];
  status: Status;
  skipReason?: string;
}

export type ExpectationResult = MatrixResult | ProbesResult;

export interface StepResult {
  index: number;
  name?: string;
  status: Status;
  expectations: ExpectationResult[];
  /** An action or probe setup failed; the case stops at this step. */
  error?: string;
}

export interface CaseResult {
  file: string;
  id: string;
  title: string;
  status: Status;
  steps: StepResult[];
  /** Loading or setup failed before any step ran. */
  error?: string;
  /** Cleanup failed; the case keeps its status but the next case may see leftovers. */
  cleanupError?: string;
  cells: { checked: number; mismatched: number; skipped: number };
  /** Probe rounds it took (1 = no retries needed). */
  attempts: number;
}

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  cases: CaseResult[];
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

function expectFromChar(ch: string): ProbeExpect {
  return ch === '.' ? 'allow' : 'deny';
}

export function outcomeMatches(expect: ProbeExpect, observed: ProbeOutcome): boolean {
  switch (expect) {
    case 'allow':
      return observed === 'allow';
    case 'deny':
      return observed === 'drop' || observed === 'reject';
    default:
      return observed === expect;
  }
}

export function outcomeChar(o: ProbeOutcome | undefined): string {
  if (o === undefined) return '?';
  return o === 'allow' ? '.' : o === 'error' ? 'E' : 'X';
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

interface LivePod {
  spec: FixturePod;
  realIPs: string[];
}

/** Runs one loaded case against the provider and cleans up after it, whatever happens. */
export class CaseRun {
  private readonly pods = new Map<string, LivePod>();
  /** Namespace name -> created by this run (only those are deleted at cleanup). */
  private readonly namespaces = new Map<string, boolean>();
  /** Applied objects by kind/namespace/name, in apply order, with the apiVersion used. */
  private readonly applied = new Map<string, ObjectRef>();
  private attempts = 1;
  private readonly o: Required<Omit<RunnerOptions, 'signal'>> & { signal?: AbortSignal };

  constructor(
    private readonly provider: ClusterProvider,
    private readonly c: Case,
    opts: RunnerOptions = {},
  ) {
    this.o = {
      probeTimeoutMs: opts.probeTimeoutMs ?? 2000,
      concurrency: opts.concurrency ?? 8,
      settleMs: opts.settleMs ?? 2000,
      retries: opts.retries ?? 2,
      retryDelayMs: opts.retryDelayMs ?? 1000,
      sleep: opts.sleep ?? defaultSleep,
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
  }

  async run(): Promise<CaseResult> {
    const result: CaseResult = {
      file: this.c.file,
      id: this.c.id,
      title: this.c.title,
      status: 'passed',
      steps: [],
      cells: { checked: 0, mismatched: 0, skipped: 0 },
      attempts: 1,
    };
    try {
      await this.setup();
      for (const [i, step] of this.c.steps.entries()) {
        if (this.o.signal?.aborted) throw new E2eError('E2E_PROVIDER', 'aborted');
        const sr: StepResult = {
          index: i,
          ...(step.name ? { name: step.name } : {}),
          status: 'passed',
          expectations: [],
        };
        result.steps.push(sr);
        try {
          for (const a of step.actions) await this.act(a);
          await this.realize();
          sr.expectations = await this.check(step.expect);
        } catch (e) {
          sr.error = message(e);
          sr.status = 'failed';
          break; // later steps build on this one
        }
        sr.status = combine(sr.expectations.map((x) => x.status));
      }
    } catch (e) {
      result.error = message(e);
    } finally {
      try {
        await this.cleanup();
      } catch (e) {
        result.cleanupError = message(e);
      }
    }
    for (const s of result.steps)
      for (const x of s.expectations) {
        const cells =
          x.kind === 'probes' ? x.cells : x.rows.flatMap((r) => r.cells.filter((c): c is Cell => !!c));
        for (const cell of cells) {
          if (cell.observed === undefined) result.cells.skipped++;
          else {
            result.cells.checked++;
            if (!cell.ok) result.cells.mismatched++;
          }
        }
      }
    result.attempts = this.attempts;
    result.status = result.error
      ? 'failed'
      : combine(result.steps.map((s) => s.status).concat(result.cells.checked === 0 ? ['skipped'] : []));
    return result;
  }

  private mapping(): IpMapping {
    return new IpMapping(
      [...this.pods.values()].map((p) => ({
        namespace: p.spec.namespace,
        name: p.spec.name,
        fixtureIPs: p.spec.ips,
        realIPs: p.realIPs,
      })),
    );
  }

  private async setup(): Promise<void> {
    for (const ns of this.c.fixture.namespaces) await this.createNamespace(ns.name, ns.labels);
    const taking = new Set(this.c.pods);
    const pods = this.c.fixture.pods.filter((p) => taking.has(podKey(p.namespace, p.name)));
    // Every creation runs to its end before a failure is reported, so cleanup sees every Pod made.
    const errors: unknown[] = [];
    await mapLimit(pods, this.o.concurrency, (p) =>
      this.createPod(p).catch((e: unknown) => void errors.push(e)),
    );
    if (errors.length) throw errors[0];
  }

  private async createNamespace(name: string, labels: Record<string, string>): Promise<void> {
    const { created } = await this.provider.createNamespace(name, labels);
    if (!this.namespaces.has(name)) this.namespaces.set(name, created);
  }

  private async createPod(p: FixturePod): Promise<void> {
    const { ips } = await this.provider.createPod({
      namespace: p.namespace,
      name: p.name,
      labels: p.labels,
      ...(p.node ? { node: p.node } : {}),
      ports: p.ports,
    });
    this.pods.set(podKey(p.namespace, p.name), { spec: structuredClone(p), realIPs: ips });
  }

  private ref(kind: string, namespace: string | undefined, name: string): ObjectRef {
    const known = this.applied.get(`${kind}/${namespace ?? ''}/${name}`);
    if (known) return known;
    const apiVersion = defaultApiVersion(kind);
    if (!apiVersion)
      throw new E2eError('E2E_UNSUPPORTED', `no apiVersion known for kind ${kind} (apply it first)`);
    return { apiVersion, kind, ...(namespace ? { namespace } : {}), name };
  }

  private async act(a: Action): Promise<void> {
    switch (a.op) {
      case 'apply': {
        const obj = this.mapping().prepare(a.object) as KubeObject;
        await this.provider.apply(obj);
        const md = obj.metadata;
        const key = `${obj.kind}/${md.namespace ?? ''}/${md.name}`;
        this.applied.delete(key); // re-insert: cleanup order follows the latest apply
        this.applied.set(key, {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          ...(md.namespace ? { namespace: md.namespace } : {}),
          name: md.name,
        });
        return;
      }
      case 'delete':
        if (a.kind === 'Pod' && a.namespace)
          return this.act({ op: 'deletePod', namespace: a.namespace, name: a.name });
        if (a.kind === 'Namespace') return this.act({ op: 'deleteNamespace', name: a.name });
        await this.provider.delete(this.ref(a.kind, a.namespace, a.name));
        this.applied.delete(`${a.kind}/${a.namespace ?? ''}/${a.name}`);
        return;
      case 'patch':
        await this.provider.patch(this.ref(a.kind, a.namespace, a.name), this.mapping().prepare(a.jsonPatch));
        return;
      case 'setLabels':
        await this.provider.setLabels(
          { kind: a.kind, ...(a.namespace ? { namespace: a.namespace } : {}), name: a.name },
          a.labels,
        );
        if (a.kind === 'Pod') {
          const p = this.pods.get(podKey(a.namespace!, a.name));
          if (p) p.spec.labels = { ...a.labels };
        }
        return;
      case 'createPod':
        return this.createPod(a.pod);
      case 'deletePod':
        await this.provider.deletePod({ namespace: a.namespace, name: a.name });
        this.pods.delete(podKey(a.namespace, a.name));
        return;
      case 'createNamespace':
        return this.createNamespace(a.namespace.name, a.namespace.labels);
      case 'deleteNamespace':
        await this.provider.deleteNamespace(a.name);
        this.namespaces.delete(a.name);
        for (const k of [...this.pods.keys()]) if (k.startsWith(`${a.name}/`)) this.pods.delete(k);
        for (const [k, r] of [...this.applied]) if (r.namespace === a.name) this.applied.delete(k);
        return;
    }
  }

  private async realize(): Promise<void> {
    if (this.provider.waitForRealization) await this.provider.waitForRealization(this.o.signal);
    else await this.o.sleep(this.o.settleMs, this.o.signal);
  }

  /** Builds the cells of every expectation, probes them (retrying mismatches), fills results. */
  private async check(expect: Expectation[]): Promise<ExpectationResult[]> {
    const results: ExpectationResult[] = [];
    const toProbe: Cell[] = [];
    for (const x of expect) {
      if (x.kind === 'matrix') {
        const supported = this.provider.supports(x.protocol);
        const rows = x.rows.map(([from, line]) => ({
          from,
          expected: line,
          observed: '',
          cells: [...line].map((ch, i): Cell | undefined =>
            ch === '-'
              ? undefined
              : { from, to: x.cols[i]!, port: x.port, protocol: x.protocol, expect: expectFromChar(ch) },
          ),
        }));
        if (supported) for (const r of rows) for (const c of r.cells) if (c) toProbe.push(c);
        results.push({
          kind: 'matrix',
          port: x.port,
          protocol: x.protocol,
          cols: x.cols,
          rows,
          status: supported ? 'passed' : 'skipped',
          ...(supported
            ? {}
            : { skipReason: `${x.protocol} not supported by provider ${this.provider.name}` }),
        });
      } else {
        const cells: Cell[] = x.probes.map((p) => ({ ...p }));
        const unsupported = [
          ...new Set(cells.filter((c) => !this.provider.supports(c.protocol)).map((c) => c.protocol)),
        ];
        for (const c of cells) if (this.provider.supports(c.protocol)) toProbe.push(c);
        results.push({
          kind: 'probes',
          cells,
          status: 'passed',
          ...(unsupported.length
            ? { skipReason: `${unsupported.join(', ')} not supported by provider ${this.provider.name}` }
            : {}),
        });
      }
    }
    let pending = toProbe;
    for (let attempt = 0; pending.length > 0; attempt++) {
      await this.probeCells(pending);
      pending = pending.filter((c) => !c.ok);
      if (pending.length === 0 || attempt >= this.o.retries) break;
      this.attempts = Math.max(this.attempts, attempt + 2);
      await this.o.sleep(this.o.retryDelayMs, this.o.signal);
    }
    for (const r of results) {
      if (r.kind === 'matrix') {
        for (const row of r.rows)
          row.observed = row.cells
            .map((c) => (c ? (c.observed ? outcomeChar(c.observed) : '?') : '-'))
            .join('');
        if (r.status !== 'skipped')
          r.status = r.rows.every((row) => row.cells.every((c) => !c || c.ok)) ? 'passed' : 'failed';
      } else {
        const probed = r.cells.filter((c) => c.observed !== undefined);
        r.status = probed.some((c) => !c.ok)
          ? 'failed'
          : probed.length < r.cells.length || probed.length === 0
            ? 'skipped'
            : 'passed';
      }
    }
    return results;
  }

  private podRef(key: string): PodRef | undefined {
    return this.pods.has(key) ? splitPodKey(key) : undefined;
  }

  private async probeCells(cells: Cell[]): Promise<void> {
    const record = (c: Cell, o: ProbeOutcome) => {
      c.observed = o;
      c.ok = outcomeMatches(c.expect, o);
    };
    const valid: Cell[] = [];
    for (const c of cells) {
      // A cell naming a Pod that does not exist now (deleted, or created by a later step) is an error.
      if (this.podRef(c.from) && this.podRef(c.to)) valid.push(c);
      else record(c, 'error');
    }
    const t = this.o.probeTimeoutMs;
    if (this.provider.probeMany) {
      const bySource = new Map<string, Cell[]>();
      for (const c of valid) bySource.set(c.from, [...(bySource.get(c.from) ?? []), c]);
      await mapLimit([...bySource], this.o.concurrency, async ([from, list]) => {
        const targets: ProbeTarget[] = list.map((c) => ({
          to: splitPodKey(c.to),
          port: c.port,
          protocol: c.protocol,
        }));
        let outcomes: ProbeOutcome[];
        try {
          outcomes = await this.provider.probeMany!(splitPodKey(from), targets, t);
        } catch {
          outcomes = list.map(() => 'error');
        }
        for (const [i, c] of list.entries()) record(c, outcomes[i] ?? 'error');
      });
      return;
    }
    await mapLimit(valid, this.o.concurrency, async (c) => {
      let o: ProbeOutcome;
      try {
        o = await this.provider.probe(splitPodKey(c.from), splitPodKey(c.to), c.port, c.protocol, t);
      } catch {
        o = 'error';
      }
      record(c, o);
    });
  }

  /**
   * Deletes what this run made: applied objects in reverse order (cluster-scoped ones after
   * namespaced ones, so a Tier goes after the policies in it), Pods in Namespaces it did not create,
   * then the Namespaces it created. Every deletion is tried; the first failure is reported.
   */
  private async cleanup(): Promise<void> {
    const errors: string[] = [];
    const attempt = async (what: string, f: () => Promise<void>) => {
      try {
        await f();
      } catch (e) {
        errors.push(`${what}: ${message(e)}`);
      }
    };
    const refs = [...this.applied.values()].reverse();
    const ordered = [
      ...refs.filter((r) => !isClusterScoped(r.kind)),
      ...refs.filter((r) => isClusterScoped(r.kind)),
    ];
    for (const r of ordered)
      await attempt(`delete ${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`, () =>
        this.provider.delete(r),
      );
    this.applied.clear();
    const ownPods = [...this.pods.values()].filter((p) => !this.namespaces.get(p.spec.namespace));
    await mapLimit(ownPods, this.o.concurrency, (p) =>
      attempt(`delete Pod ${p.spec.namespace}/${p.spec.name}`, () =>
        this.provider.deletePod({ namespace: p.spec.namespace, name: p.spec.name }),
      ),
    );
    this.pods.clear();
    const created = [...this.namespaces].filter(([, c]) => c).map(([n]) => n);
    await mapLimit(created, this.o.concurrency, (n) =>
      attempt(`delete Namespace ${n}`, () => this.provider.deleteNamespace(n)),
    );
    this.namespaces.clear();
    if (errors.length) throw new E2eError('E2E_PROVIDER', errors.join('; '));
  }
}

/** failed beats skipped beats passed. */
function combine(statuses: Status[]): Status {
  if (statuses.includes('failed')) return 'failed';
  if (statuses.includes('skipped')) return 'skipped';
  return 'passed';
}

export function runCase(provider: ClusterProvider, c: Case, opts?: RunnerOptions): Promise<CaseResult> {
  return new CaseRun(provider, c, opts).run();
}

/**
 * Loads and runs case files one after another (cases share namespace names, so never in
 * parallel). A file that fails to load is a failed case. `onCase` sees each result as it comes.
 */
export async function runCaseFiles(
  provider: ClusterProvider,
  files: readonly string[],
  opts: RunnerOptions & { onCase?: (r: CaseResult) => void } = {},
): Promise<RunSummary> {
  const summary: RunSummary = { passed: 0, failed: 0, skipped: 0, cases: [] };
  for (const file of files) {
    if (opts.signal?.aborted) break;
    let r: CaseResult;
    try {
      r = await runCase(provider, loadCase(file), opts);
    } catch (e) {
      r = {
        file,
        id: file,
        title: '',
        status: 'failed',
        steps: [],
        error: message(e),
        cells: { checked: 0, mismatched: 0, skipped: 0 },
        attempts: 0,
      };
    }
    summary[r.status]++;
    summary.cases.push(r);
    opts.onCase?.(r);
  }
  return summary;
}
