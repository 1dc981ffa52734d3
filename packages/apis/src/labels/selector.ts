import { LabelSelectorError } from './errors.js';

/**
 * A metav1.LabelSelector as the API may deliver it: operators are plain strings (V1LabelSelector's
 * shape) and are checked when compiled. The CRD types' LabelSelector is one.
 */
export interface AnyLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: AnyLabelSelectorRequirement[];
}

export interface AnyLabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export type Labels = Readonly<Record<string, string>>;

type Op = 'Equals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

interface Requirement {
  key: string;
  op: Op;
  values: readonly string[];
}

/**
 * A compiled label selector. `text` is the selector's canonical form exactly as apimachinery's
 * labels.Selector.String() prints it, because group names are UUIDv5 over that text.
 */
export interface Selector {
  readonly text: string;
  /** True for the empty selector `{}`, which matches everything. */
  readonly empty: boolean;
  /**
   * labelKey(k, v) of one `k=v` requirement when there is one: every matching label set contains
   * it, so indexes can narrow candidates to label sets with that pair.
   */
  readonly indexKey: string | undefined;
  matches(labels: Labels): boolean;
}

function requirementText(r: Requirement): string {
  switch (r.op) {
    case 'Equals':
      return `${r.key}=${r.values[0]}`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    case 'In':
    case 'NotIn': {
      // String() sorts values only when there are several, without touching the selector.
      const vals = r.values.length > 1 ? [...r.values].sort() : r.values;
      return `${r.key} ${r.op === 'In' ? 'in' : 'notin'} (${vals.join(',')})`;
    }
  }
}

function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case 'Equals':
      return has && labels[r.key] === r.values[0];
    case 'In':
      return has && r.values.includes(labels[r.key]!);
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}

const EVERYTHING: Selector = { text: '', empty: true, indexKey: undefined, matches: () => true };

/** The index key of one label pair (see Selector.indexKey). */
export function labelPairKey(key: string, value: string): string {
  return [key, value].join('\x00');
}

/**
 * Compiles a LabelSelector like metav1.LabelSelectorAsSelector: matchLabels become `key=value`
 * requirements, expressions keep their order, and the whole list is sorted by key (a stable sort,
 * which is what Go's insertion sort does for the short lists selectors have).
 * Throws LabelSelectorError on an unknown operator or a missing/extra values list.
 */
export function compileSelector(sel: AnyLabelSelector, cache?: SelectorCache): Selector {
  const reqs: Requirement[] = [];
  const ml = sel.matchLabels ?? {};
  for (const key of Object.keys(ml).sort()) reqs.push({ key, op: 'Equals', values: [ml[key]!] });
  for (const e of sel.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          throw new LabelSelectorError(
            `for 'in', 'notin' operators, values set can't be empty (key ${e.key})`,
          );
        }
        reqs.push({ key: e.key, op: e.operator, values: [...values] });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          throw new LabelSelectorError(
            `values set must be empty for exists and does not exist (key ${e.key})`,
          );
        }
        reqs.push({ key: e.key, op: e.operator, values: [] });
        break;
      default:
        throw new LabelSelectorError(`"${e.operator}" is not a valid label selector operator`);
    }
  }
  if (reqs.length === 0) return EVERYTHING;
  // Fast path: a lone matchLabels pair (the common selector) is looked up before anything else.
  if (reqs.length === 1 && reqs[0]!.op === 'Equals') {
    const r = reqs[0]!;
    const text = requirementText(r);
    const hit = cache?.get(text);
    if (hit) return hit;
  }
  const sorted = reqs
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (a.r.key < b.r.key ? -1 : a.r.key > b.r.key ? 1 : a.i - b.i))
    .map((x) => x.r);
  const text = sorted.map(requirementText).join(',');
  // Equal selectors are shared: thousands of policies repeat the same few (app=web, ...), and each
  // compiled selector costs a closure, its context and two strings.
  const cached = cache?.get(text);
  if (cached) return cached;
  const intern = (c: Selector) => (cache ? cache.put(c) : c);
  const eq = sorted.find((r) => r.op === 'Equals');
  const indexKey = eq ? labelPairKey(eq.key, eq.values[0]!) : undefined;
  // Specialize the overwhelmingly common single `key=value` selector.
  if (sorted.length === 1 && sorted[0]!.op === 'Equals') {
    const { key } = sorted[0]!;
    const value = sorted[0]!.values[0];
    return intern({
      text,
      empty: false,
      indexKey,
      matches: (l) => l[key] === value && Object.hasOwn(l, key),
    });
  }
  return intern({
    text,
    empty: false,
    indexKey,
    matches: (l) => sorted.every((r) => requirementMatches(r, l)),
  });
}

/** A compiled selector that matches everything (`{}`). */
export function everything(): Selector {
  return EVERYTHING;
}

/**
 * Compiled selectors by canonical text, owned by one engine. Selectors are immutable and their text
 * identifies their semantics, so sharing is safe: thousands of policies repeat the same few
 * (app=web, ...), and each compiled selector costs a closure, its context and two strings. Bounded
 * so that a stream of distinct selectors cannot grow it forever.
 */
export class SelectorCache {
  private readonly byText = new Map<string, Selector>();
  constructor(private readonly limit = 1 << 20) {}

  get(text: string): Selector | undefined {
    return this.byText.get(text);
  }

  put(s: Selector): Selector {
    if (this.byText.size >= this.limit) this.byText.clear();
    this.byText.set(s.text, s);
    return s;
  }

  compile(sel: AnyLabelSelector): Selector {
    return compileSelector(sel, this);
  }
}
