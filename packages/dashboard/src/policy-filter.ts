import type { PolicyRow, PolicyType } from './policy-rows.js';

/** The policies page's query string. */
export interface PolicyQuery {
  /** Substring of "namespace/name". */
  q?: string;
  /** ACNP, ANNP or K8s; anything else: all types. */
  type?: string;
  /** 1-based. */
  page?: string;
}

export interface PolicyPage {
  rows: PolicyRow[];
  /** Policies in the cluster. */
  total: number;
  /** Policies the filter keeps. */
  matched: number;
  page: number;
  pages: number;
  q: string;
  type: string;
}

const TYPES: Record<string, PolicyType> = {
  ACNP: 'AntreaClusterNetworkPolicy',
  ANNP: 'AntreaNetworkPolicy',
  K8s: 'K8sNetworkPolicy',
};

/** Policies per page: a cluster with thousands of policies must not make a page of megabytes. */
export const POLICY_PAGE_SIZE = 100;

export function selectPolicies(
  all: readonly PolicyRow[],
  query: PolicyQuery,
  pageSize = POLICY_PAGE_SIZE,
): PolicyPage {
  const q = (query.q ?? '').trim();
  const type = TYPES[query.type ?? ''] ? query.type! : '';
  const wanted = TYPES[type];
  const matched = all.filter(
    (p) => (!wanted || p.type === wanted) && (q === '' || `${p.namespace ?? ''}/${p.name}`.includes(q)),
  );
  const pages = Math.max(1, Math.ceil(matched.length / pageSize));
  const n = Number.parseInt(query.page ?? '1', 10);
  const page = Number.isInteger(n) ? Math.min(Math.max(n, 1), pages) : 1;
  return {
    rows: matched.slice((page - 1) * pageSize, page * pageSize),
    total: all.length,
    matched: matched.length,
    page,
    pages,
    q,
    type,
  };
}
