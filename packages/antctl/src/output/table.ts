// Table layout copied from Antrea's pkg/antctl/output (so that scripts which cut columns out of
// antctl output keep working): columns padded to the widest cell plus one space, empty cells shown
// as <NONE>, long lists summarised as "a,b + N more...".

/** Antrea's maxTableOutputColumnLength. */
export const MAX_COLUMN_LENGTH = 50;

/** A row type that knows its table; mirrors Antrea's common.TableOutput. */
export interface TableRows {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Sort body rows lexicographically (Antrea's SortRows()). */
  readonly sortRows: boolean;
}

/** printers.GenerateTableElementWithSummary: sorted, comma-joined, cut to fit with "+ N more...". */
export function summarize(list: readonly string[], maxColumnLength = MAX_COLUMN_LENGTH): string {
  const sorted = [...list].sort();
  let element = '';
  for (let i = 0; i < sorted.length; i++) {
    const val = i === 0 ? sorted[i] : `,${sorted[i]}`;
    const summary = ` + ${sorted.length - i} more...`;
    if (element.length + (val ?? '').length > maxColumnLength) {
      element += summary;
      if (element.length > maxColumnLength) {
        let newEle = '';
        for (let j = 0; j < sorted.length; j++) {
          const v = j === 0 ? sorted[j] : `,${sorted[j]}`;
          if (j !== 0 && newEle.length + (v ?? '').length + summary.length > maxColumnLength) break;
          newEle += v;
        }
        return newEle + summary;
      }
      break;
    }
    element += val;
  }
  return element;
}

function compareRows(a: readonly string[], b: readonly string[]): number {
  for (let k = 0; k < a.length; k++) {
    const x = a[k] ?? '';
    const y = b[k] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** output.ConstructFormattedTable. */
export function formatTable(table: TableRows): string {
  const header = [...table.header];
  const body = table.rows.map((r) => [...r]);
  if (table.sortRows) body.sort(compareRows);
  const rows = [header, ...body];
  const numCols = header.length;
  const widths: number[] = new Array(numCols).fill(0);
  // A single column (ovsflows) is never padded: its rows are long and must not be cut.
  if (numCols > 1) {
    for (let j = 0; j < numCols; j++) {
      let width = (header[j] ?? '').length;
      for (let i = 1; i < rows.length; i++) {
        const row = rows[i] as string[];
        if ((row[j] ?? '') === '') row[j] = '<NONE>';
        width = Math.max(width, (row[j] ?? '').length);
      }
      widths[j] = j === 0 ? width : width + 1;
    }
  }
  let out = '';
  for (const row of rows) {
    for (let j = 0; j < numCols; j++) {
      let val = (j === 0 ? '' : ' ') + (row[j] ?? '');
      const w = widths[j] ?? 0;
      if (w > 0 && val.length < w) val += ' '.repeat(w - val.length);
      out += val;
    }
    out += '\n';
  }
  return out;
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/**
 * output.TableOutput, for responses without a table of their own (agentinfo, podinterface,
 * log-level): one column per top-level field, text/tabwriter with minwidth 15 and padding 1.
 */
export function formatGenericTable(obj: unknown): string {
  const list = Array.isArray(obj) ? obj : [obj];
  if (list.length === 0) return '\n';
  const first = list[0];
  if (typeof first !== 'object' || first === null) return `${list.map(cell).join('\n')}\n`;
  const keys = Object.keys(first as object);
  const lines = [keys, ...list.map((el) => keys.map((k) => cell((el as Record<string, unknown>)[k])))];
  const widths = keys.map((_, j) => Math.max(15, ...lines.map((l) => (l[j] ?? '').length + 1)));
  return `${lines.map((l) => l.map((c, j) => c.padEnd(widths[j] ?? 0)).join('')).join('\n')}\n`;
}
