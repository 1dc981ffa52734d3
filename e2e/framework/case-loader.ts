// Loads and checks netpol-oracle/v1 case files. Strict on what the runner uses (a mistake there
// would silently test the wrong thing), silent on extra fields (files carry derivations and notes).
// Every error names the file and the JSON path of the offending value.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  type Action,
  type Case,
  type Expectation,
  type Fixture,
  type FixtureNamespace,
  type FixturePod,
  type FixturePort,
  type JsonPatchOp,
  type KubeObject,
  type Labels,
  PROTOCOLS,
  type ProbeExpect,
  type ProbeSpec,
  type Protocol,
  podKey,
  type Step,
} from './case-types.js';
import { E2eError } from './errors.js';

export const SCHEMA = 'netpol-oracle/v1';
const MATRIX_CHARS = new Set(['.', 'X', '-']);
const PROBE_EXPECTS: readonly ProbeExpect[] = ['allow', 'deny', 'drop', 'reject'];
const PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** A cursor into the JSON being checked: knows its file and JSON path for error messages. */
class At {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly value: unknown,
  ) {}

  fail(msg: string): never {
    throw new E2eError('E2E_CASE_INVALID', `${this.file}: ${this.path}: ${msg}`);
  }

  key(k: string): At {
    const seg = /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
    const v = this.isObject() ? (this.value as Record<string, unknown>)[k] : undefined;
    return new At(this.file, `${this.path}${seg}`, v);
  }

  isObject(): boolean {
    return typeof this.value === 'object' && this.value !== null && !Array.isArray(this.value);
  }

  has(k: string): boolean {
    return this.isObject() && (this.value as Record<string, unknown>)[k] !== undefined;
  }

  object(): Record<string, unknown> {
    if (!this.isObject()) this.fail(`expected an object, got ${describe(this.value)}`);
    return this.value as Record<string, unknown>;
  }

  array(): At[] {
    if (!Array.isArray(this.value)) this.fail(`expected an array, got ${describe(this.value)}`);
    return (this.value as unknown[]).map((v, i) => new At(this.file, `${this.path}[${i}]`, v));
  }

  string(): string {
    if (typeof this.value !== 'string' || this.value === '')
      this.fail(`expected a non-empty string, got ${describe(this.value)}`);
    return this.value as string;
  }

  optString(): string | undefined {
    return this.value === undefined ? undefined : this.string();
  }

  port(): number {
    const v = this.value;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535)
      this.fail(`expected a port number 1-65535, got ${describe(v)}`);
    return v as number;
  }

  protocol(): Protocol {
    const v = this.value;
    if (!PROTOCOLS.includes(v as Protocol))
      this.fail(`expected one of ${PROTOCOLS.join(', ')}, got ${describe(v)}`);
    return v as Protocol;
  }

  labels(): Labels {
    const o = this.object();
    for (const k of Object.keys(o))
      if (typeof o[k] !== 'string') this.key(k).fail(`label values are strings, got ${describe(o[k])}`);
    return { ...(o as Labels) };
  }

  oneOf<T extends string>(values: readonly T[]): T {
    if (!values.includes(this.value as T))
      this.fail(`expected one of ${values.join(', ')}, got ${describe(this.value)}`);
    return this.value as T;
  }
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new E2eError('E2E_CASE_READ', `${file}: cannot read: ${(cause as Error).message}`, { cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new E2eError('E2E_CASE_READ', `${file}: not JSON: ${(cause as Error).message}`, { cause });
  }
}

function parsePort(at: At): FixturePort {
  at.object();
  const name = at.key('name').optString();
  return { ...(name ? { name } : {}), port: at.key('port').port(), protocol: at.key('protocol').protocol() };
}

function parsePod(at: At): FixturePod {
  at.object();
  const ips = at
    .key('ips')
    .array()
    .map((a) => a.string());
  const node = at.key('node').optString();
  return {
    namespace: at.key('namespace').string(),
    name: at.key('name').string(),
    labels: at.has('labels') ? at.key('labels').labels() : {},
    ips,
    ...(node ? { node } : {}),
    ports: at.has('ports')
      ? at
          .key('ports')
          .array()
          .map((p) => parsePort(p))
      : [],
  };
}

function parseNamespace(at: At): FixtureNamespace {
  at.object();
  return { name: at.key('name').string(), labels: at.has('labels') ? at.key('labels').labels() : {} };
}

/** Checks a fixture (from its own file or inline in a case). */
export function parseFixture(at: At): Fixture {
  const o = at.object();
  if (o.schema !== undefined && o.schema !== SCHEMA) at.key('schema').fail(`expected "${SCHEMA}"`);
  const namespaces = at
    .key('namespaces')
    .array()
    .map((n) => parseNamespace(n));
  const nsNames = new Set<string>();
  for (const [i, n] of namespaces.entries()) {
    if (nsNames.has(n.name))
      at.key('namespaces').array()[i]!.key('name').fail(`namespace ${n.name} appears twice`);
    nsNames.add(n.name);
  }
  const podsAt = at.key('pods').array();
  const pods = podsAt.map((p) => parsePod(p));
  const seen = new Set<string>();
  for (const [i, p] of pods.entries()) {
    const k = podKey(p.namespace, p.name);
    if (seen.has(k)) podsAt[i]!.fail(`pod ${k} appears twice`);
    if (!nsNames.has(p.namespace))
      podsAt[i]!.key('namespace').fail(`namespace ${p.namespace} is not in the fixture`);
    seen.add(k);
  }
  return { namespaces, pods };
}

function parseKubeObject(at: At): KubeObject {
  const o = at.object();
  at.key('apiVersion').string();
  at.key('kind').string();
  at.key('metadata').object();
  at.key('metadata').key('name').string();
  at.key('metadata').key('namespace').optString();
  // A deep copy: the runner rewrites IPs in it and must not touch the loaded case.
  return structuredClone(o) as KubeObject;
}

function parseJsonPatch(at: At): JsonPatchOp[] {
  return at.array().map((a) => {
    const o = a.object();
    a.key('op').oneOf([...PATCH_OPS] as JsonPatchOp['op'][]);
    const path = a.key('path').value;
    if (typeof path !== 'string') a.key('path').fail('expected a JSON pointer string');
    if ((o.op === 'move' || o.op === 'copy') && typeof o.from !== 'string')
      a.key('from').fail('expected a JSON pointer string');
    if ((o.op === 'add' || o.op === 'replace' || o.op === 'test') && !('value' in o))
      a.key('value').fail('missing');
    return structuredClone(o) as unknown as JsonPatchOp;
  });
}

function parseAction(at: At): Action {
  at.object();
  const op = at
    .key('op')
    .oneOf([
      'apply',
      'delete',
      'patch',
      'setLabels',
      'createPod',
      'deletePod',
      'createNamespace',
      'deleteNamespace',
    ] as const);
  const ns = () => at.key('namespace').optString();
  switch (op) {
    case 'apply':
      return { op, object: parseKubeObject(at.key('object')) };
    case 'delete': {
      const namespace = ns();
      return {
        op,
        kind: at.key('kind').string(),
        ...(namespace ? { namespace } : {}),
        name: at.key('name').string(),
      };
    }
    case 'patch': {
      const namespace = ns();
      return {
        op,
        kind: at.key('kind').string(),
        ...(namespace ? { namespace } : {}),
        name: at.key('name').string(),
        jsonPatch: parseJsonPatch(at.key('jsonPatch')),
      };
    }
    case 'setLabels': {
      const kind = at.key('kind').oneOf(['Namespace', 'Pod'] as const);
      const namespace = ns();
      if (kind === 'Pod' && !namespace) at.key('namespace').fail('a Pod needs its namespace');
      return {
        op,
        kind,
        ...(namespace ? { namespace } : {}),
        name: at.key('name').string(),
        labels: at.key('labels').labels(),
      };
    }
    case 'createPod':
      return { op, pod: parsePod(at.key('pod')) };
    case 'deletePod':
      return { op, namespace: at.key('namespace').string(), name: at.key('name').string() };
    case 'createNamespace':
      return { op, namespace: parseNamespace(at.key('namespace')) };
    case 'deleteNamespace':
      return { op, name: at.key('name').string() };
  }
}

function parseExpectation(at: At, defaultCols: string[], known: Set<string>): Expectation {
  at.object();
  const kind = at.key('kind').oneOf(['matrix', 'probes'] as const);
  const knownPod = (a: At): string => {
    const k = a.string();
    if (!known.has(k)) a.fail(`pod ${k} is neither in the fixture nor created by a step`);
    return k;
  };
  if (kind === 'probes') {
    const probes: ProbeSpec[] = at
      .key('probes')
      .array()
      .map((p) => {
        p.object();
        const why = p.key('why').value;
        return {
          from: knownPod(p.key('from')),
          to: knownPod(p.key('to')),
          port: p.key('port').port(),
          protocol: p.key('protocol').protocol(),
          expect: p.key('expect').oneOf(PROBE_EXPECTS),
          ...(typeof why === 'string' ? { why } : {}),
        };
      });
    return { kind, probes };
  }
  const cols = at.has('cols')
    ? at
        .key('cols')
        .array()
        .map((c) => knownPod(c))
    : defaultCols;
  const rowsAt = at.key('rows');
  const rows: [string, string][] = [];
  for (const src of Object.keys(rowsAt.object())) {
    const r = rowsAt.key(src);
    knownPod(new At(r.file, r.path, src));
    const line = r.string();
    if (line.length !== cols.length)
      r.fail(`row has ${line.length} characters for ${cols.length} columns (${cols.join(' ')})`);
    for (const [i, ch] of [...line].entries())
      if (!MATRIX_CHARS.has(ch))
        r.fail(`character ${i + 1} is ${JSON.stringify(ch)}; expected ".", "X" or "-"`);
    rows.push([src, line]);
  }
  return { kind, port: at.key('port').port(), protocol: at.key('protocol').protocol(), cols, rows };
}

/** Finds `fixtures/<id>.json` in the case file's folder or its parent folder. */
export function resolveFixtureFile(caseFile: string, id: string): string | undefined {
  const dir = dirname(caseFile);
  for (const d of [join(dir, 'fixtures'), join(dir, '..', 'fixtures')]) {
    const p = join(d, `${id}.json`);
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Loads one case file, resolving its fixture. Throws E2eError with file and JSON path. */
export function loadCase(file: string): Case {
  const abs = resolve(file);
  const root = new At(abs, '$', readJson(abs));
  root.object();
  const schema = root.key('schema');
  if (schema.value !== SCHEMA) schema.fail(`expected "${SCHEMA}", got ${describe(schema.value)}`);
  const id = root.key('id').string();
  const title = root.has('title') ? root.key('title').string() : id;
  const tags = root.has('tags')
    ? root
        .key('tags')
        .array()
        .map((t) => t.string())
    : [];
  const notes = root.key('notes').value;

  const fx = root.key('fixture');
  let fixture: Fixture;
  let fixtureSource: string;
  if (typeof fx.value === 'string') {
    const ref = fx.string();
    const p = resolveFixtureFile(abs, ref);
    if (!p)
      throw new E2eError(
        'E2E_FIXTURE_NOT_FOUND',
        `${abs}: $.fixture: no fixtures/${ref}.json in ${dirname(abs)} or its parent folder`,
      );
    const fixtureRoot = new At(p, '$', readJson(p));
    fixture = parseFixture(fixtureRoot);
    fixtureSource = p;
  } else {
    fixture = parseFixture(fx);
    fixtureSource = 'inline';
  }
  const fixturePods = fixture.pods.map((p) => podKey(p.namespace, p.name));
  let pods = fixturePods;
  if (root.has('pods')) {
    const all = new Set(fixturePods);
    pods = root
      .key('pods')
      .array()
      .map((a) => {
        const k = a.string();
        if (!all.has(k)) a.fail(`pod ${k} is not in the fixture`);
        return k;
      });
  }

  const stepsAt = root.key('steps').array();
  if (stepsAt.length === 0) root.key('steps').fail('a case needs at least one step');
  // Pods a later step creates may be named by any expectation (the runner checks existence when it
  // probes), so collect them before checking expectations.
  const actions = stepsAt.map((s) => {
    s.object();
    return s
      .key('actions')
      .array()
      .map((a) => parseAction(a));
  });
  const known = new Set(pods);
  for (const list of actions)
    for (const a of list) if (a.op === 'createPod') known.add(podKey(a.pod.namespace, a.pod.name));
  const steps: Step[] = stepsAt.map((s, i) => {
    const name = s.key('name').value;
    return {
      ...(typeof name === 'string' ? { name } : {}),
      actions: actions[i]!,
      expect: s
        .key('expect')
        .array()
        .map((e) => parseExpectation(e, pods, known)),
    };
  });
  return {
    file: abs,
    id,
    title,
    tags,
    ...(typeof notes === 'string' ? { notes } : {}),
    fixture,
    fixtureSource,
    pods,
    steps,
  };
}

/** True for a file that declares itself a fixture (kind "Fixture"), which the runner does not run. */
function isFixtureFile(file: string): boolean {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as { kind?: unknown };
    return v?.kind === 'Fixture';
  } catch {
    return false; // loadCase reports it
  }
}

/**
 * Case files under the given files or folders, sorted, `fixtures/` folders and fixture files left
 * out. A file named explicitly is always taken (and fails to load if it is not a case).
 */
export function findCaseFiles(paths: readonly string[]): string[] {
  const out = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory() && e.name !== 'fixtures' && !e.name.startsWith('.')) walk(p);
      else if (e.isFile() && e.name.endsWith('.json') && !isFixtureFile(p)) out.add(p);
    }
  };
  for (const p of paths) {
    const abs = resolve(p);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(abs);
    } catch (cause) {
      throw new E2eError('E2E_CASE_READ', `${abs}: not found`, { cause });
    }
    if (st.isDirectory()) walk(abs);
    else out.add(abs);
  }
  return [...out].sort();
}
