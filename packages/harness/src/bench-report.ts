import { percentile } from './bench-report-stats.js';

/** One measurement, as every benchmark of the project prints it with --json. */
export interface BenchRow {
  readonly case: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
}

/** Lays a benchmark's rows out as text for people. */
export type BenchTableFormat = (rows: readonly BenchRow[]) => string;

export interface BenchReportOptions {
  /** The table `finish()` prints; `formatBenchTable` (a line per measurement) unless given. */
  readonly table?: BenchTableFormat;
  /** Where text goes; stdout unless given (tests collect it). */
  readonly write?: (text: string) => void;
}

/**
 * Collects a benchmark's measurements: with `json` each one is written at once as a
 * `{"bench","case","metric","value","unit"}` line (so a run that dies still leaves what it measured);
 * otherwise `finish()` writes them as one table, whose columns need every row first.
 */
export class BenchReport {
  readonly rows: BenchRow[] = [];
  private readonly table: BenchTableFormat;
  private readonly write: (text: string) => void;
  private finished = false;

  constructor(
    private readonly bench: string,
    private readonly json: boolean,
    options: BenchReportOptions = {},
  ) {
    this.table = options.table ?? formatBenchTable;
    this.write = options.write ?? ((t) => process.stdout.write(t));
  }

  record(c: string, metric: string, value: number, unit: string): void {
    const row = { case: c, metric, value: roundBenchValue(value), unit };
    this.rows.push(row);
    if (this.json) this.write(`${JSON.stringify({ bench: this.bench, ...row })}\n`);
  }

  /**
   * One row per entry of `points` (metric name -> p in 0..100): the nearest-rank percentile of
   * `samples`, so `{ min: 0, p50: 50, max: 100 }` gives the smallest, median and largest sample.
   */
  recordPercentiles(
    c: string,
    samples: readonly number[],
    points: Readonly<Record<string, number>>,
    unit: string,
  ): void {
    for (const [metric, p] of Object.entries(points)) this.record(c, metric, percentile(samples, p), unit);
  }

  /** A remark for the reader of the table, written at once; JSON output stays measurements only. */
  note(text: string): void {
    if (!this.json) this.write(`(${text})\n`);
  }

  /**
   * Writes the table (after `heading`, a line saying what was measured) unless in JSON mode. Only the
   * first call writes, so a bench can call it from `finally` and still show what a failed run measured.
   */
  finish(heading?: string): void {
    if (this.finished) return;
    this.finished = true;
    if (this.json || this.rows.length === 0) return;
    this.write(`${heading === undefined ? '' : `${heading}\n`}${this.table(this.rows)}`);
  }
}

/**
 * The value as reported: integers as they are, 3 decimals from 1 up, 3 significant digits below 1
 * (sub-millisecond latencies keep their precision).
 */
export function roundBenchValue(value: number): number {
  if (!Number.isFinite(value) || Number.isInteger(value)) return value;
  return Math.abs(value) >= 1 ? Math.round(value * 1000) / 1000 : Number(value.toPrecision(3));
}

/** A value for a table cell: integers in full, otherwise about 3 significant digits. */
export function formatBenchValue(value: number): string {
  if (!Number.isFinite(value) || Number.isInteger(value)) return String(value);
  const size = Math.abs(value);
  if (size >= 100) return value.toFixed(1);
  if (size >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

/** A line per measurement: `case  metric  value unit`, the value right-aligned. */
export function formatBenchTable(rows: readonly BenchRow[]): string {
  return alignColumns(
    [
      ['case', 'metric', 'value', 'unit'],
      ...rows.map((r) => [r.case, r.metric, formatBenchValue(r.value), r.unit]),
    ],
    [2],
  );
}

/**
 * A line per case and a column per metric (in the order first measured), a units line under the
 * metric names; for benches that measure the same metrics (min/p50/p99...) of several cases. A cell
 * whose unit differs from its column's carries its own; a metric a case lacks shows as `-`.
 */
export function formatBenchMatrix(rows: readonly BenchRow[]): string {
  const cases = [...new Set(rows.map((r) => r.case))];
  const units = new Map<string, string>();
  for (const r of rows) if (!units.has(r.metric)) units.set(r.metric, r.unit);
  const metrics = [...units.keys()];
  const cell = (c: string, metric: string): string => {
    const r = rows.find((x) => x.case === c && x.metric === metric);
    if (r === undefined) return '-';
    const value = formatBenchValue(r.value);
    return r.unit === units.get(metric) ? value : `${value} ${r.unit}`;
  };
  const numeric = metrics.map((_, i) => i + 1);
  return alignColumns(
    [
      ['case', ...metrics],
      ['', ...metrics.map((m) => units.get(m)!)],
      ...cases.map((c) => [c, ...metrics.map((m) => cell(c, m))]),
    ],
    numeric,
  );
}

/** Pads every column to its widest cell, two spaces apart; `right` lists the right-aligned columns. */
function alignColumns(lines: readonly (readonly string[])[], right: readonly number[]): string {
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  const text = lines.map((l) =>
    l
      .map((cell, i) => (right.includes(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  return `${text.join('\n')}\n`;
}
