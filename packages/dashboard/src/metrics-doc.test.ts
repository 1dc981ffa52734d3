import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

// docs/metrics.md must list every Prometheus metric the components register, with the right type
// and labels. The dashboard package holds this check as the monitoring package of the repo; the
// metrics themselves live in the controller, apiserver and agent packages, found by reading their
// sources (so a new metric anywhere fails here until it is documented).

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = join(ROOT, 'docs', 'metrics.md');

interface Metric {
  name: string;
  type: string;
  labels: string[];
  where: string;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      // Test doubles are not what a component exposes.
      if (e.name !== 'node_modules' && e.name !== 'dist' && e.name !== 'testing') out.push(...sourceFiles(p));
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) {
      out.push(p);
    }
  }
  return out;
}

const CONSTRUCTOR = /new (Counter|Gauge|Histogram|Summary)\b(?:<[^>]*>)?\(\s*\{/g;

/** Metrics constructed in one file: name, type from the class, labels from labelNames. */
function metricsIn(file: string, text: string): Metric[] {
  const starts = [...text.matchAll(CONSTRUCTOR)];
  return starts.map((m, i) => {
    const body = text.slice(m.index, starts[i + 1]?.index ?? text.length);
    const name = /\bname:\s*'([^']+)'/.exec(body)?.[1];
    if (!name) throw new Error(`${file}: a ${m[1]} whose name is not a literal`);
    const labels = /\blabelNames:\s*\[([^\]]*)\]/.exec(body)?.[1] ?? '';
    return {
      name,
      type: m[1]!.toLowerCase(),
      labels: [...labels.matchAll(/'([^']+)'/g)].map((l) => l[1]!),
      where: relative(ROOT, file),
    };
  });
}

async function registeredMetrics(): Promise<Metric[]> {
  const out: Metric[] = [];
  let defaults = false;
  const dirs = [
    ...readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'src')),
    join(ROOT, 'cmd'),
  ];
  for (const dir of dirs) {
    let files: string[];
    try {
      files = sourceFiles(dir);
    } catch {
      continue; // a package without src/
    }
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      if (!text.includes('prom-client')) continue;
      out.push(...metricsIn(f, text));
      if (/collectDefaultMetrics\(/.test(text)) defaults = true;
    }
  }
  if (defaults) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // prom-client's MetricObject type omits what every metric instance has: get() and labelNames.
    type Instance = { name: string; labelNames?: string[]; get(): Promise<{ type: string }> };
    for (const m of registry.getMetricsAsArray() as unknown as Instance[]) {
      const { type } = await m.get();
      out.push({ name: m.name, type, labels: [...(m.labelNames ?? [])], where: 'prom-client defaults' });
    }
  }
  return out;
}

/** Rows of the doc's metric tables: | `name` | type | `label`, `label` or - | meaning | Antrea |. */
function documentedMetrics(): Map<string, { type: string; labels: string[] }> {
  const rows = new Map<string, { type: string; labels: string[] }>();
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const m = /^\| `([a-z_:][a-z0-9_:]*)` \| (\w+) \| ([^|]*) \|/.exec(line);
    if (!m) continue;
    if (rows.has(m[1]!)) throw new Error(`${m[1]} is documented twice`);
    rows.set(m[1]!, { type: m[2]!, labels: [...m[3]!.matchAll(/`([^`]+)`/g)].map((l) => l[1]!) });
  }
  return rows;
}

describe('docs/metrics.md', () => {
  it('finds the metrics it is meant to check (the source scan works)', async () => {
    const names = (await registeredMetrics()).map((m) => m.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'antrea_agent_local_pod_count',
        'antrea_controller_connected_agents',
        'apiserver_request_total',
        'process_cpu_seconds_total',
      ]),
    );
  });

  it('documents every registered metric with its type and labels', async () => {
    const doc = documentedMetrics();
    const problems: string[] = [];
    for (const m of await registeredMetrics()) {
      const d = doc.get(m.name);
      if (!d) problems.push(`${m.name} (${m.where}) is not documented`);
      else if (d.type !== m.type)
        problems.push(`${m.name}: documented as ${d.type}, registered as ${m.type}`);
      else if (d.labels.join(',') !== m.labels.join(','))
        problems.push(`${m.name}: documented labels [${d.labels}], registered [${m.labels}]`);
    }
    expect(problems).toEqual([]);
  });

  it('documents no metric that is not registered', async () => {
    const registered = new Set((await registeredMetrics()).map((m) => m.name));
    expect([...documentedMetrics().keys()].filter((n) => !registered.has(n))).toEqual([]);
  });
});
