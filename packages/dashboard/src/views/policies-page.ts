import { html, type SafeHtml } from '../html.js';
import type { PolicyPage } from '../policy-filter.js';
import type { PolicyRow, PolicyType, RuleRow, Traffic } from '../policy-rows.js';
import { badge, page } from './layout.js';

const SHORT: Record<PolicyType, string> = {
  AntreaClusterNetworkPolicy: 'ACNP',
  AntreaNetworkPolicy: 'ANNP',
  K8sNetworkPolicy: 'K8s NP',
};

function trafficCells(t: Traffic | undefined): SafeHtml {
  if (!t) return html`<td class="num muted" colspan="3">not counted per rule</td>`;
  return html`<td class="num">${t.packets}</td><td class="num">${t.bytes}</td><td class="num">${t.sessions}</td>`;
}

function rulesTable(rules: readonly RuleRow[]): SafeHtml {
  if (rules.length === 0) return html`<span class="muted">no rules</span>`;
  return html`<table class="rules"><tr><th>rule</th><th>direction</th><th>action</th><th>packets</th><th>bytes</th><th>sessions</th></tr>
${rules.map((r) => html`<tr data-rule="${r.name}"><td>${r.name}</td><td>${r.direction}</td><td>${r.action}</td>${trafficCells(r.traffic)}</tr>`)}</table>`;
}

function realization(p: PolicyRow): SafeHtml {
  if (!p.status) {
    return p.type === 'K8sNetworkPolicy'
      ? html`<td class="muted">not reported for K8s policies</td><td class="num">-</td>`
      : html`<td>${badge('Pending')}</td><td class="num">-</td>`;
  }
  const s = p.status;
  return html`<td class="phase">${badge(s.phase)}${s.message ? html` <span class="error">${s.message}</span>` : ''}</td>
<td class="num realized">${s.currentNodesRealized}/${s.desiredNodesRealized}</td>`;
}

function filterForm(p: PolicyPage): SafeHtml {
  const types: [string, string][] = [
    ['', 'all types'],
    ['ACNP', 'ACNP'],
    ['ANNP', 'ANNP'],
    ['K8s', 'K8s NP'],
  ];
  return html`<form class="filter" method="get" action="/policies">
<input id="q" name="q" value="${p.q}" placeholder="namespace/name contains">
<select id="type" name="type">${types.map(([v, label]) => html`<option value="${v}" ${v === p.type ? html`selected` : ''}>${label}</option>`)}</select>
<button type="submit">Filter</button></form>`;
}

function pager(p: PolicyPage): SafeHtml {
  if (p.pages === 1) return html``;
  const link = (page: number, label: string) => {
    const query = new URLSearchParams({
      ...(p.q ? { q: p.q } : {}),
      ...(p.type ? { type: p.type } : {}),
      page: String(page),
    });
    return html`<a href="/policies?${query.toString()}">${label}</a>`;
  };
  return html`<p class="pager">${p.page > 1 ? link(p.page - 1, '« previous') : ''} page ${p.page} of ${p.pages} ${
    p.page < p.pages ? link(p.page + 1, 'next »') : ''
  }</p>`;
}

export function policiesPage(p: PolicyPage, refreshMs: number): string {
  const body = p.rows.map(
    (r) => html`<tr data-policy="${r.type}/${r.namespace ?? ''}/${r.name}">
<td>${SHORT[r.type]}</td><td>${r.namespace ?? ''}</td><td>${r.name}</td>
<td>${r.tier ?? ''}</td><td class="num">${r.priority ?? ''}</td>${realization(r)}
<td class="num">${r.spanNodes ?? '-'}</td>${trafficCells(r.traffic)}<td>${rulesTable(r.rules)}</td></tr>`,
  );
  const counted = p.matched === p.total ? `${p.total}` : `${p.matched} of ${p.total}`;
  return page(
    { title: 'Policies', section: 'policies', refreshMs },
    html`<h1>Policies (${counted})</h1>
<p class="muted">Realization is what the agents reported (Antrea-native policies). Span: Nodes the
controller sends the policy to. Traffic: totals the agents counted since the policy was created.</p>
${filterForm(p)}${pager(p)}
${
  p.rows.length === 0
    ? html`<p class="muted">No NetworkPolicies${p.matched === p.total ? '' : ' match'}.</p>`
    : html`<table id="policies"><tr><th>type</th><th>namespace</th><th>name</th><th>tier</th><th>priority</th>
<th>phase</th><th>Nodes realized</th><th>span</th><th>packets</th><th>bytes</th><th>sessions</th><th>rules</th></tr>${body}</table>`
}${pager(p)}`,
  );
}
