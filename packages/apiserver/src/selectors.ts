// Label and field selectors in Kubernetes' query syntax (apimachinery labels.Parse and
// fields.ParseSelector). Parsed once per request; handlers use `matches` or read a single equality
// (an agent watches with fieldSelector=nodeName=<node>).
import { ApiServerError } from './errors.js';

export type LabelOperator = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export class LabelSelector {
  constructor(readonly requirements: readonly LabelRequirement[]) {}

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    return this.requirements.every((r) => {
      const value = labels?.[r.key];
      switch (r.operator) {
        case 'exists':
          return value !== undefined;
        case '!exists':
          return value === undefined;
        case '=':
        case 'in':
          return value !== undefined && r.values.includes(value);
        case '!=':
        case 'notin':
          return value === undefined || !r.values.includes(value);
        case 'gt':
        case 'lt': {
          if (value === undefined || !/^-?\d+$/.test(value)) return false;
          const n = Number(value);
          const bound = Number(r.values[0]);
          return r.operator === 'gt' ? n > bound : n < bound;
        }
      }
      return false;
    });
  }
}

function invalid(selector: string, why: string): ApiServerError {
  return new ApiServerError('APISERVER_SELECTOR_INVALID', `unable to parse selector "${selector}": ${why}`);
}

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

export function parseLabelSelector(selector: string | undefined): LabelSelector {
  if (selector === undefined || selector.trim() === '') return new LabelSelector([]);
  const requirements: LabelRequirement[] = [];
  for (const raw of splitTopLevel(selector)) {
    const part = raw.trim();
    if (part === '') throw invalid(selector, 'empty requirement');
    let req: LabelRequirement;
    const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    const cmp = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/.exec(part);
    if (set) {
      const values = set[3]!.split(',').map((v) => v.trim());
      req = {
        key: set[1]!,
        operator: set[2] as 'in' | 'notin',
        values: values.length === 1 && values[0] === '' ? [] : values,
      };
      if (req.values.length === 0) throw invalid(selector, `no values for ${req.key}`);
    } else if (cmp) {
      const op = cmp[2]!;
      const operator: LabelOperator = op === '>' ? 'gt' : op === '<' ? 'lt' : op === '!=' ? '!=' : '=';
      req = { key: cmp[1]!, operator, values: [cmp[3]!.trim()] };
      if ((operator === 'gt' || operator === 'lt') && !/^-?\d+$/.test(req.values[0]!)) {
        throw invalid(selector, `${req.key} needs an integer`);
      }
    } else if (part.startsWith('!')) {
      req = { key: part.slice(1).trim(), operator: '!exists', values: [] };
    } else {
      req = { key: part, operator: 'exists', values: [] };
    }
    if (!LABEL_KEY.test(req.key)) throw invalid(selector, `invalid label key "${req.key}"`);
    if (req.operator !== 'gt' && req.operator !== 'lt') {
      for (const v of req.values)
        if (!LABEL_VALUE.test(v)) throw invalid(selector, `invalid label value "${v}"`);
    }
    requirements.push(req);
  }
  return new LabelSelector(requirements);
}

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export class FieldSelector {
  constructor(readonly requirements: readonly FieldRequirement[]) {}

  get empty(): boolean {
    return this.requirements.length === 0;
  }

  /** The value a `field=value` requirement pins, e.g. equality('nodeName'). */
  equality(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }

  matches(get: (field: string) => string | undefined): boolean {
    return this.requirements.every((r) => (get(r.field) === r.value) === (r.operator === '='));
  }
}

/** fields.ParseSelector: `a=b,c!=d`, with `\` escaping `,`, `=`, `!` and `\` in values. */
export function parseFieldSelector(selector: string | undefined): FieldSelector {
  if (selector === undefined || selector.trim() === '') return new FieldSelector([]);
  const requirements: FieldRequirement[] = [];
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!;
    if (c === '\\' && i + 1 < selector.length) {
      current += c + selector[++i];
    } else if (c === ',') {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  for (const part of parts) {
    const m = /^([^=!]+?)(==|=|!=)(.*)$/.exec(part);
    if (!m) throw invalid(selector, `invalid field requirement "${part}"`);
    const value = m[3]!.replace(/\\(.)/g, '$1');
    requirements.push({ field: m[1]!.trim(), operator: m[2] === '!=' ? '!=' : '=', value });
  }
  return new FieldSelector(requirements);
}
