import { describe, expect, it } from 'vitest';
import { benchArgs } from './args.js';
import { BenchReport, formatBenchTable } from './report.js';
import { policyWorkload } from './workload.js';

describe('BenchReport', () => {
  it('writes one JSON line per measurement with --json and no table', () => {
    let out = '';
    const r = new BenchReport('nsx', true, (t) => (out += t));
    r.record('c', 'time', 1.23456, 'ms');
    r.note('not for machines');
    r.finish();
    expect(
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ bench: 'nsx', case: 'c', metric: 'time', value: 1.235, unit: 'ms' }]);
  });

  it('prints a table at the end otherwise', () => {
    let out = '';
    const r = new BenchReport('nsx', false, (t) => (out += t));
    r.record('long-case', 'time', 12.34, 'ms');
    r.record('c', 'objects', 3000, 'objects');
    r.finish();
    expect(out).toBe(
      ['case metric     value', 'long-case time  12.3 ms', 'c objects       3000 objects', ''].join('\n'),
    );
    expect(formatBenchTable([])).toBe('case metric  value\n');
  });
});

describe('policyWorkload', () => {
  it('creates groups first, then each policy and its span, referencing only the first groups', () => {
    const patches = [...policyWorkload({ policies: 2, rules: 3, groups: 4, referenced: 2, cluster: 'c1' })];
    expect(patches.map((p) => p.path.split('/').slice(4).join('/'))).toEqual([
      'groups/g0',
      'groups/g1',
      'groups/g2',
      'groups/g3',
      'security-policies/p0',
      'security-policies/p0/container-cluster-span/c1',
      'security-policies/p1',
      'security-policies/p1/container-cluster-span/c1',
    ]);
    const p1 = patches[6]!.body as { rules: { action: string; source_groups: string[] }[]; scope: string[] };
    expect(p1.rules.map((r) => r.action)).toEqual(['ALLOW', 'ALLOW', 'DROP']);
    const used = new Set([...p1.scope, ...p1.rules.flatMap((r) => r.source_groups)]);
    expect([...used].sort()).toEqual([
      '/infra/domains/default/groups/g0',
      '/infra/domains/default/groups/g1',
    ]);
  });
});

describe('benchArgs', () => {
  it('reads --json and --name value options, with defaults', () => {
    const a = benchArgs(['--json', '--policies', '20', '--cases', 'ccp']);
    expect([a.json, a.number('policies', 500), a.number('rules', 10), a.string('cases', 'all')]).toEqual([
      true,
      20,
      10,
      'ccp',
    ]);
    expect(benchArgs([]).json).toBe(false);
  });
});
