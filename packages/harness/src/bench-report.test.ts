import { describe, expect, it } from 'vitest';
import {
  BenchReport,
  formatBenchMatrix,
  formatBenchTable,
  formatBenchValue,
  roundBenchValue,
} from './bench-report.js';

function collect(json: boolean, matrix = false) {
  let out = '';
  const report = new BenchReport('nsx', json, {
    write: (t) => {
      out += t;
    },
    ...(matrix ? { table: formatBenchMatrix } : {}),
  });
  return { report, text: () => out };
}

describe('BenchReport', () => {
  it('writes one JSON line per measurement at once with --json, and neither notes nor a table', () => {
    const { report, text } = collect(true);
    report.record('c', 'time', 1.23456, 'ms');
    expect(text()).toBe('{"bench":"nsx","case":"c","metric":"time","value":1.235,"unit":"ms"}\n');
    report.note('not for machines');
    report.record('c', 'objects', 3000, 'objects');
    report.finish('heading');
    expect(
      text()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { bench: 'nsx', case: 'c', metric: 'time', value: 1.235, unit: 'ms' },
      { bench: 'nsx', case: 'c', metric: 'objects', value: 3000, unit: 'objects' },
    ]);
  });

  it('writes notes at once and the table, after its heading, once at the end otherwise', () => {
    const { report, text } = collect(false);
    report.record('long-case', 'time', 12.345, 'ms');
    report.note('created 3 Pods in 0.4 s');
    report.record('c', 'objects', 3000, 'objects');
    expect(text()).toBe('(created 3 Pods in 0.4 s)\n');
    report.finish('NSX sync, 3 Pods');
    report.finish('again');
    expect(text()).toBe(
      [
        '(created 3 Pods in 0.4 s)',
        'NSX sync, 3 Pods',
        'case       metric   value  unit',
        'long-case  time     12.35  ms',
        'c          objects   3000  objects',
        '',
      ].join('\n'),
    );
  });

  it('records percentiles of samples under the given metric names', () => {
    const { report } = collect(true);
    report.recordPercentiles('c', [5, 1, 4, 2, 3], { min: 0, p50: 50, max: 100 }, 'ms');
    expect(report.rows.map((r) => [r.metric, r.value])).toEqual([
      ['min', 1],
      ['p50', 3],
      ['max', 5],
    ]);
  });

  it('writes nothing at the end when nothing was measured', () => {
    const { report, text } = collect(false);
    report.finish('heading');
    expect(text()).toBe('');
  });

  it('lays rows out by case and metric with the matrix format', () => {
    const { report, text } = collect(false, true);
    report.record('ADD', 'p50', 0.3125, 'ms');
    report.record('ADD', 'p99', 1.5, 'ms');
    report.record('DEL-long', 'p50', 0.25, 'ms');
    report.record('DEL-long', 'bytes', 2048, 'B');
    report.record('GET', 'p99', 2, 's');
    report.finish();
    expect(text()).toBe(
      [
        'case        p50   p99  bytes',
        '             ms    ms      B',
        'ADD       0.313  1.50      -',
        'DEL-long  0.250     -   2048',
        'GET           -   2 s      -',
        '',
      ].join('\n'),
    );
  });
});

describe('formatBenchTable', () => {
  it('prints only the header without rows', () => {
    expect(formatBenchTable([])).toBe('case  metric  value  unit\n');
  });
});

describe('value rounding and formatting', () => {
  it('keeps integers, 3 decimals from 1 up and 3 significant digits below 1', () => {
    expect([12345, 1.23456, 0.0123456, 0.5, Number.NaN].map(roundBenchValue)).toEqual([
      12345,
      1.235,
      0.0123,
      0.5,
      Number.NaN,
    ]);
  });

  it('shows about 3 significant digits in tables', () => {
    expect([1234.56, 12.345, 0.012345, 42, Number.NaN].map(formatBenchValue)).toEqual([
      '1234.6',
      '12.35',
      '0.0123',
      '42',
      'NaN',
    ]);
  });
});
