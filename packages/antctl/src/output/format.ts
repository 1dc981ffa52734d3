import { stringify } from 'yaml';
import { AntctlError } from '../errors.js';
import { formatGenericTable, formatTable, type TableRows } from './table.js';

export type OutputFormat = 'table' | 'json' | 'yaml' | 'raw';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'table', 'yaml', 'raw'];

export function parseOutputFormat(value: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new AntctlError(
    'ANTCTL_USAGE',
    `unsupported output format "${value}": want one of json|table|yaml|raw`,
  );
}

/** Antrea's JsonOutput: 2-space indented JSON (no trailing newline in Go; we add one for shells). */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Antrea's YamlOutput: block style, 2-space indent. */
export function toYaml(value: unknown): string {
  return stringify(value, { indent: 2, lineWidth: 0 });
}

/**
 * Renders one command's result. `table` builds the command's own table when it has one; without
 * it the generic one-column-per-field table is used, as Antrea does.
 */
export function render(
  value: unknown,
  format: OutputFormat,
  table?: (v: unknown) => TableRows | undefined,
): string {
  switch (format) {
    case 'json':
      return toJson(value);
    case 'yaml':
      return toYaml(value);
    case 'raw':
      return typeof value === 'string' ? value : toJson(value);
    case 'table': {
      if (Array.isArray(value) && value.length === 0) return '\n';
      const t = table?.(value);
      if (t === undefined) return formatGenericTable(value);
      return t.rows.length === 0 ? '\n' : formatTable(t);
    }
  }
}
