/** One measurement, as every benchmark of the project prints it with --json. */
export interface BenchRow {
  readonly case: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
}

/**
 * Collects a benchmark's measurements: with `json` each one is written at once as a
 * `{"bench","case","metric","value","unit"}` line (so a run that dies still leaves what it measured);
 * otherwise `finish()` writes them as a table.
 */
export class BenchReport {
  readonly rows: BenchRow[] = [];

  constructor(
    private readonly bench: string,
    private readonly json: boolean,
    private readonly write: (text: string) => void = (t) => process.stdout.write(t),
  ) {}

  record(c: string, metric: string, value: number, unit: string): void {
    const row = { case: c, metric, value: Math.round(value * 1000) / 1000, unit };
    this.rows.push(row);
    if (this.json) this.write(`${JSON.stringify({ bench: this.bench, ...row })}\n`);
  }

  /** A remark for the reader of the table; JSON output stays measurements only. */
  note(text: string): void {
    if (!this.json) this.write(`(${text})\n`);
  }

  finish(): void {
    if (this.json || this.rows.length === 0) return;
    this.write(formatBenchTable(this.rows));
  }
}

/** `case metric  value unit` lines under a header, names padded to one column. */
export function formatBenchTable(rows: readonly BenchRow[]): string {
  const label = (r: BenchRow) => `${r.case} ${r.metric}`;
  const w = Math.max('case metric'.length, ...rows.map((r) => label(r).length));
  const lines = [`${'case metric'.padEnd(w)}  value`];
  for (const r of rows)
    lines.push(`${label(r).padEnd(w)}  ${r.value.toFixed(r.unit === 'ms' ? 1 : 0)} ${r.unit}`);
  return `${lines.join('\n')}\n`;
}
