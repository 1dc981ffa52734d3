// Runs the shared netpol-oracle/v1 case files through the compute core and the connectivity
// oracle: every expected matrix cell must come out of what the controller computed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ConnectivityOracle, type Endpoint } from './connectivity.js';
import { newWorld } from './fixtures.js';

const CASES_DIR = '/work/shared/netpol-cases';

interface FixturePod {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  ips: string[];
  node?: string;
  ports: { name?: string; port: number; protocol: string }[];
}
interface Fixture {
  namespaces: { name: string; labels: Record<string, string> }[];
  pods: FixturePod[];
}
// biome-ignore lint/suspicious/noExplicitAny: case files are free-form JSON
type Json = any;

function caseFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== 'fixtures') out.push(...caseFiles(p));
    else if (e.isFile() && e.name.endsWith('.json')) out.push(p);
  }
  return out.sort();
}

function loadFixture(file: string, ref: string | Fixture): Fixture {
  if (typeof ref !== 'string') return ref;
  for (const d of [join(dirname(file), 'fixtures'), join(dirname(file), '..', 'fixtures')]) {
    const p = join(d, `${ref}.json`);
    if (existsSync(p)) return JSON.parse(readFileSync(p, 'utf8')) as Fixture;
  }
  throw new Error(`fixture ${ref} not found for ${file}`);
}

function toPod(p: FixturePod): V1Pod {
  return {
    metadata: {
      namespace: p.namespace,
      name: p.name,
      labels: { ...p.labels },
      uid: `uid-${p.namespace}-${p.name}`,
    },
    spec: {
      nodeName: p.node ?? 'node-1',
      containers: [
        {
          name: 'c',
          ports: p.ports.map((x) => ({ name: x.name, containerPort: x.port, protocol: x.protocol })),
        },
      ],
    },
    status: { phase: 'Running', podIPs: p.ips.map((ip) => ({ ip })) },
  };
}

function substituteIPs(obj: Json, pods: Map<string, FixturePod>): Json {
  const text = JSON.stringify(obj).replace(
    /\$\{ip:([^}]+)\}/g,
    (_, key: string) => pods.get(key)?.ips[0] ?? '0.0.0.0',
  );
  return JSON.parse(text);
}

function runCase(file: string): { cell: string; expected: string; got: string }[] {
  const c = JSON.parse(readFileSync(file, 'utf8')) as Json;
  const fixture = loadFixture(file, c.fixture);
  const w = newWorld();
  const e = w.engine;
  const pods = new Map<string, FixturePod>();
  const nsLabels = new Map<string, Record<string, string>>();
  for (const ns of fixture.namespaces) {
    nsLabels.set(ns.name, ns.labels);
    e.upsertNamespace({ metadata: { name: ns.name, labels: ns.labels } });
  }
  for (const p of fixture.pods) {
    pods.set(`${p.namespace}/${p.name}`, p);
    e.upsertPod(toPod(p));
  }
  const policies = new Map<string, Json>();
  let uid = 0;
  const mismatches: { cell: string; expected: string; got: string }[] = [];
  for (const [si, step] of (c.steps as Json[]).entries()) {
    for (const a of step.actions as Json[]) {
      switch (a.op) {
        case 'apply': {
          const o = substituteIPs(a.object, pods);
          if (o.kind !== 'NetworkPolicy') throw new Error(`unsupported kind ${o.kind}`);
          const key = `${o.metadata.namespace}/${o.metadata.name}`;
          o.metadata.uid = policies.get(key)?.metadata.uid ?? `uid-${++uid}`;
          o.metadata.generation = (policies.get(key)?.metadata.generation ?? 0) + 1;
          policies.set(key, o);
          e.upsertK8sNetworkPolicy(o as V1NetworkPolicy);
          break;
        }
        case 'delete':
          policies.delete(`${a.namespace}/${a.name}`);
          e.deleteK8sNetworkPolicy(a.namespace, a.name);
          break;
        case 'setLabels':
          if (a.kind === 'Namespace') {
            nsLabels.set(a.name, a.labels);
            e.upsertNamespace({ metadata: { name: a.name, labels: a.labels } });
          } else {
            const p = pods.get(`${a.namespace}/${a.name}`)!;
            p.labels = a.labels;
            e.upsertPod(toPod(p));
          }
          break;
        case 'createPod':
          pods.set(`${a.pod.namespace}/${a.pod.name}`, a.pod);
          e.upsertPod(toPod(a.pod));
          break;
        case 'deletePod':
          pods.delete(`${a.namespace}/${a.name}`);
          e.deletePod(a.namespace, a.name);
          break;
        case 'createNamespace':
          e.upsertNamespace({ metadata: { name: a.namespace.name, labels: a.namespace.labels } });
          break;
        case 'deleteNamespace':
          e.deleteNamespace(a.name);
          break;
        default:
          throw new Error(`unsupported op ${a.op}`);
      }
    }
    e.flush();
    const oracle = new ConnectivityOracle(w);
    const ep = (key: string): Endpoint => {
      const p = pods.get(key)!;
      return { namespace: p.namespace, name: p.name, ip: p.ips[0]!, ports: p.ports };
    };
    for (const ex of step.expect as Json[]) {
      if (ex.protocol === 'SCTP') continue; // reported as skipped by the e2e runner as well
      if (ex.kind === 'matrix') {
        const cols: string[] = ex.cols ?? c.pods ?? fixture.pods.map((p) => `${p.namespace}/${p.name}`);
        for (const [src, row] of Object.entries(ex.rows as Record<string, string>)) {
          [...row].forEach((ch, i) => {
            if (ch === '-') return;
            const v = oracle.verdict(ep(src), ep(cols[i]!), ex.port, ex.protocol);
            const got = v === 'allow' ? '.' : 'X';
            if (got !== ch)
              mismatches.push({
                cell: `step ${si} ${ex.protocol}/${ex.port} ${src} -> ${cols[i]}`,
                expected: ch,
                got,
              });
          });
        }
      } else if (ex.kind === 'probes') {
        for (const p of ex.probes as Json[]) {
          const v = oracle.verdict(ep(p.from), ep(p.to), p.port, p.protocol);
          const ok = p.expect === 'deny' ? v !== 'allow' : v === p.expect;
          if (!ok)
            mismatches.push({
              cell: `step ${si} ${p.protocol}/${p.port} ${p.from} -> ${p.to}`,
              expected: p.expect,
              got: v,
            });
        }
      }
    }
  }
  return mismatches;
}

describe.skipIf(!existsSync(CASES_DIR))('shared netpol-oracle cases', () => {
  const files = existsSync(CASES_DIR) ? caseFiles(CASES_DIR) : [];
  for (const f of files) {
    it(f.slice(CASES_DIR.length + 1), () => {
      expect(runCase(f)).toEqual([]);
    });
  }
});
