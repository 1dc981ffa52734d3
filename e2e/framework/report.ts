// Text for people: observed vs expected matrices side by side, a verdict line per case, and the
// summary line. Pure functions returning lines; the CLI decides where they go.
import type { CaseResult, Cell, ExpectationResult, RunSummary } from './runner.js';

export interface ReportOptions {
  /** ANSI colours (mismatched cells in red); without them a `^` line marks mismatches. */
  color?: boolean;
  /** Print matrices of passing expectations too, not only failing ones. */
  verbose?: boolean;
}

const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const RESET = '\u001b[0m';

function paint(text: string, code: string, color: boolean | undefined): string {
  return color ? `${code}${text}${RESET}` : text;
}

function cellDetail(c: Cell): string {
  return `${c.to} ${c.protocol}/${c.port}: expected ${c.expect}, got ${c.observed ?? 'nothing'}`;
}

function expectationLines(x: ExpectationResult, o: ReportOptions): string[] {
  const out: string[] = [];
  if (x.kind === 'matrix') {
    const head = `    ${x.protocol}/${x.port} ${x.status}${x.skipReason ? ` (${x.skipReason})` : ''}`;
    out.push(head);
    if (x.status === 'skipped' || (x.status === 'passed' && !o.verbose)) return out;
    const width = Math.max(4, ...x.rows.map((r) => r.from.length));
    const mlen = Math.max(8, x.cols.length);
    out.push(`      cols: ${x.cols.join(' ')}`);
    out.push(`      ${'from'.padEnd(width)}  ${'expected'.padEnd(mlen)}  observed`);
    for (const r of x.rows) {
      const bad = r.cells.map((c) => !!c && c.observed !== undefined && !c.ok);
      const observed = [...r.observed].map((ch, i) => (bad[i] ? paint(ch, RED, o.color) : ch)).join('');
      const pad = ' '.repeat(Math.max(0, mlen - r.observed.length));
      const details = r.cells.filter((c, i): c is Cell => !!c && !!bad[i]).map((c) => cellDetail(c));
      out.push(
        `      ${r.from.padEnd(width)}  ${r.expected.padEnd(mlen)}  ${observed}${pad}${details.length ? `  <- ${details.join('; ')}` : ''}`.trimEnd(),
      );
      if (!o.color && bad.some(Boolean))
        out.push(
          `      ${' '.repeat(width)}  ${' '.repeat(mlen)}  ${bad
            .map((b) => (b ? '^' : ' '))
            .join('')
            .trimEnd()}`,
        );
    }
    return out;
  }
  out.push(`    probes ${x.status}${x.skipReason ? ` (${x.skipReason})` : ''}`);
  for (const c of x.cells) {
    if (x.status === 'passed' && !o.verbose) break;
    const mark =
      c.observed === undefined ? paint('skip', YELLOW, o.color) : c.ok ? 'ok  ' : paint('FAIL', RED, o.color);
    out.push(
      `      ${mark} ${c.from} -> ${c.to} ${c.protocol}/${c.port} expected ${c.expect}, observed ${c.observed ?? '-'}${c.why ? `  (${c.why})` : ''}`,
    );
  }
  return out;
}

/** Lines for one case: steps with their expectations, then the verdict line. */
export function caseLines(r: CaseResult, o: ReportOptions = {}): string[] {
  const out: string[] = [];
  out.push(`case ${r.id}${r.title && r.title !== r.id ? ` - ${r.title}` : ''}`);
  if (r.error) out.push(`  error: ${r.error}`);
  for (const s of r.steps) {
    out.push(`  step ${s.index + 1}${s.name ? ` "${s.name}"` : ''}: ${s.status}`);
    if (s.error) out.push(`    error: ${s.error}`);
    for (const x of s.expectations) out.push(...expectationLines(x, o));
  }
  if (r.cleanupError) out.push(`  cleanup error: ${r.cleanupError}`);
  const c = r.cells;
  const detail = `${c.checked} cells checked, ${c.mismatched} mismatched${c.skipped ? `, ${c.skipped} skipped` : ''}${r.attempts > 1 ? `, ${r.attempts} probe rounds` : ''}`;
  const word = r.status.toUpperCase();
  const colour = r.status === 'passed' ? GREEN : r.status === 'failed' ? RED : YELLOW;
  out.push(`${paint(word, colour, o.color)} ${r.id} (${detail})`);
  return out;
}

export function summaryLine(s: RunSummary): string {
  return `${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`;
}
