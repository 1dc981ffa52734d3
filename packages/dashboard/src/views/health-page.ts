import type { AgentSummary, ControllerSummary } from '../health.js';
import { html } from '../html.js';
import { age, badge, page } from './layout.js';

/** "3 Healthy, 1 Stale": how many agents are in each state, worst first. */
function summary(agents: readonly AgentSummary[]): string {
  const counts = new Map<string, number>();
  for (const a of agents) counts.set(a.state, (counts.get(a.state) ?? 0) + 1);
  return [...counts].map(([state, n]) => `${n} ${state}`).join(', ');
}

export function healthPage(
  controller: ControllerSummary,
  agents: readonly AgentSummary[],
  refreshMs: number,
): string {
  const c = controller;
  const rows = agents.map(
    (a) => html`<tr data-node="${a.node}">
<td>${a.node}</td><td>${badge(a.state)}</td><td class="num">${age(a.heartbeatAgeSeconds)}</td>
<td>${a.failing.length ? a.failing.join(', ') : '-'}</td><td>${a.connected ? 'yes' : 'no'}</td>
<td>${a.version}</td><td class="num">${a.localPods ?? '-'}</td><td class="num">${a.flows ?? '-'}</td>
<td>${a.nodeSubnets.join(', ')}</td></tr>`,
  );
  return page(
    { title: 'Cluster health', section: 'health', refreshMs },
    html`<h1>Cluster health</h1>
<h2>Controller</h2>
<table id="controller"><tr><th>state</th><td>${badge(c.state)}</td></tr>
<tr><th>heartbeat age</th><td>${age(c.heartbeatAgeSeconds)}</td></tr>
<tr><th>version</th><td>${c.version}</td></tr>
<tr><th>connected agents</th><td class="num">${c.connectedAgents}</td></tr>
<tr><th>NetworkPolicies / AppliedToGroups / AddressGroups</th><td class="num">${c.networkPolicies} / ${c.appliedToGroups} / ${c.addressGroups}</td></tr>
${c.failing.length ? html`<tr><th>failing conditions</th><td class="error">${c.failing.join(', ')}</td></tr>` : ''}
</table>
<h2>Agents (${agents.length})</h2>
<p id="agent-summary">${summary(agents)}</p>
${
  agents.length === 0
    ? html`<p class="muted">No AntreaAgentInfo yet: no agent has reported.</p>`
    : html`<table id="agents"><tr><th>Node</th><th>state</th><th>heartbeat age</th><th>failing conditions</th>
<th>watching controller</th><th>version</th><th>local Pods</th><th>OVS flows</th><th>Pod CIDRs</th></tr>${rows}</table>`
}`,
  );
}
