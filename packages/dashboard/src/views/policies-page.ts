import { html, type SafeHtml } from '../html.js';
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

export function policiesPage(rows: readonly PolicyRow[], refreshMs: number): string {
  const body = rows.map(
    (p) => html`<tr data-policy="${p.type}/${p.namespace ?? ''}/${p.name}">
<td>${SHORT[p.type]}</td><td>${p.namespace ?? ''}</td><td>${p.name}</td>
<td>${p.tier ?? ''}</td><td class="num">${p.priority ?? ''}</td>${realization(p)}
<td class="num">${p.spanNodes ?? '-'}</td>${trafficCells(p.traffic)}<td>${rulesTable(p.rules)}</td></tr>`,
  );
  return page(
    { title: 'Policies', section: 'policies', refreshMs },
    html`<h1>Policies (${rows.length})</h1>
<p class="muted">Realization is what the agents reported (Antrea-native policies). Span: Nodes the
controller sends the policy to. Traffic: totals the agents counted since the policy was created.</p>
${
  rows.length === 0
    ? html`<p class="muted">No NetworkPolicies.</p>`
    : html`<table id="policies"><tr><th>type</th><th>namespace</th><th>name</th><th>tier</th><th>priority</th>
<th>phase</th><th>Nodes realized</th><th>span</th><th>packets</th><th>bytes</th><th>sessions</th><th>rules</th></tr>${body}</table>`
}`,
  );
}
