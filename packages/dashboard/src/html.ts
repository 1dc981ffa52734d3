// Server-side HTML with escaping by default: every interpolated value is escaped unless it is
// already SafeHtml (the output of html`` itself), so a Pod or policy name can never inject markup.

const kSafe = Symbol('safe-html');

export interface SafeHtml {
  readonly [kSafe]: true;
  readonly text: string;
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function isSafe(v: unknown): v is SafeHtml {
  return typeof v === 'object' && v !== null && kSafe in v;
}

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (isSafe(v)) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

/** Markup that is trusted as is: only for constants of this package (scripts, styles). */
export function trusted(text: string): SafeHtml {
  return { [kSafe]: true, text };
}

/** Tagged template: literal parts are trusted, values are escaped (arrays are concatenated). */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return trusted(out);
}
