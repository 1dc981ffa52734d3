import type { Traceflow, TraceflowObservation, TraceflowSpec } from '@antrea-ts/apis';
import { html, type SafeHtml } from '../html.js';
import type { TraceflowForm } from '../traceflow-form.js';
import { badge, page } from './layout.js';

function endpoint(
  e: { namespace?: string; pod?: string; service?: string; ip?: string } | undefined,
): string {
  if (!e) return '';
  if (e.pod) return `${e.namespace ?? ''}/${e.pod}`;
  if (e.service) return `Service ${e.namespace ?? ''}/${e.service}`;
  return e.ip ?? '';
}

function protocol(spec: TraceflowSpec): string {
  const p = spec.packet;
  const t = p?.transportHeader;
  if (t?.tcp) return `TCP ${t.tcp.dstPort ?? ''}`;
  if (t?.udp) return `UDP ${t.udp.dstPort ?? ''}`;
  const n = p?.ipHeader?.protocol ?? 1;
  return n === 1 ? 'ICMP' : `IP protocol ${n}`;
}

const phaseOf = (tf: Traceflow): string => tf.status?.phase ?? 'Pending';

const input = (label: string, field: keyof TraceflowForm, form: TraceflowForm, placeholder = '') =>
  html`<label for="${field}">${label}</label><input id="${field}" name="${field}" value="${form[field] ?? ''}" placeholder="${placeholder}">`;

function select(label: string, field: keyof TraceflowForm, options: string[], form: TraceflowForm): SafeHtml {
  const current = form[field] ?? options[0];
  return html`<label for="${field}">${label}</label><select id="${field}" name="${field}">${options.map(
    (o) => html`<option value="${o}" ${o === current ? html`selected` : ''}>${o}</option>`,
  )}</select>`;
}

const checkbox = (label: string, field: keyof TraceflowForm, form: TraceflowForm) =>
  html`<label for="${field}">${label}</label><input type="checkbox" id="${field}" name="${field}" ${form[field] === 'on' ? html`checked` : ''}>`;

/** The form, an error from the last submission if any, and the Traceflows in the cluster. */
export function traceflowListPage(
  traceflows: readonly Traceflow[],
  opts: { form?: TraceflowForm; error?: string } = {},
): string {
  const form = opts.form ?? {};
  const rows = [...traceflows]
    .sort((a, b) =>
      (b.metadata.creationTimestamp ?? '')
        .toString()
        .localeCompare((a.metadata.creationTimestamp ?? '').toString()),
    )
    .map(
      (
        tf,
      ) => html`<tr data-traceflow="${tf.metadata.name}"><td><a href="/traceflow/${tf.metadata.name ?? ''}">${tf.metadata.name}</a></td>
<td>${badge(phaseOf(tf))}</td><td>${endpoint(tf.spec.source)}</td><td>${endpoint(tf.spec.destination)}</td><td>${protocol(tf.spec)}</td></tr>`,
    );
  return page(
    // No refresh: it would reset what is being typed into the form.
    { title: 'Traceflow', section: 'traceflow', refreshMs: 0 },
    html`<h1>Traceflow</h1>
<form class="traceflow" method="post" action="/traceflow">
${input('source namespace', 'srcNamespace', form, 'default')}${input('source Pod', 'srcPod', form)}
${select('destination type', 'dstType', ['pod', 'service', 'ip'], form)}
${input('destination namespace', 'dstNamespace', form, 'same as source')}${input('destination Pod or Service', 'dstName', form)}
${input('destination IP', 'dstIP', form)}${select('protocol', 'protocol', ['ICMP', 'TCP', 'UDP'], form)}
${input('destination port', 'dstPort', form, '80 (TCP), 53 (UDP)')}${input('timeout (s)', 'timeout', form, '20')}
${checkbox('live traffic', 'liveTraffic', form)}${checkbox('dropped only', 'droppedOnly', form)}
<button type="submit">Run Traceflow</button></form>
${opts.error ? html`<p class="error" id="form-error">${opts.error}</p>` : ''}
<h2>Traceflows (${traceflows.length})</h2>
${
  rows.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<table id="traceflows"><tr><th>name</th><th>phase</th><th>source</th><th>destination</th><th>protocol</th></tr>${rows}</table>`
}`,
  );
}

function observationRow(o: TraceflowObservation): SafeHtml {
  const detail = [
    o.pod && `Pod ${o.pod}`,
    o.networkPolicy && `policy ${o.networkPolicy}`,
    o.networkPolicyRule && `rule ${o.networkPolicyRule}`,
    o.tunnelDstIP && `tunnel to ${o.tunnelDstIP}`,
    o.translatedDstIP && `DNAT to ${o.translatedDstIP}`,
    o.translatedSrcIP && `SNAT to ${o.translatedSrcIP}`,
    o.egressIP && `egress IP ${o.egressIP}`,
    o.ttl !== undefined && `TTL ${o.ttl}`,
  ].filter(Boolean);
  return html`<tr class="observation"><td>${o.component ?? ''}${o.componentInfo ? ` (${o.componentInfo})` : ''}</td><td>${o.action ?? ''}</td><td>${detail.join(', ')}</td></tr>`;
}

/** One Traceflow: its request, phase and per-Node observations, refreshed until it ends. */
export function traceflowPage(tf: Traceflow, refreshMs: number): string {
  const phase = phaseOf(tf);
  const final = phase === 'Succeeded' || phase === 'Failed';
  const s = tf.status;
  const results = (s?.results ?? []).map(
    (r) => html`<h3>${r.node ?? ''} <span class="muted">(${r.role ?? ''})</span></h3>
<table class="results" data-node="${r.node ?? ''}"><tr><th>component</th><th>action</th><th>details</th></tr>${(r.observations ?? []).map(observationRow)}</table>`,
  );
  return page(
    {
      title: `Traceflow ${tf.metadata.name ?? ''}`,
      section: 'traceflow',
      refreshMs,
      final,
    },
    html`<h1>Traceflow ${tf.metadata.name}</h1>
<table id="traceflow"><tr><th>phase</th><td id="phase">${badge(phase)}</td></tr>
${s?.reason ? html`<tr><th>reason</th><td class="error">${s.reason}</td></tr>` : ''}
<tr><th>source</th><td>${endpoint(tf.spec.source)}</td></tr>
<tr><th>destination</th><td>${endpoint(tf.spec.destination)}</td></tr>
<tr><th>protocol</th><td>${protocol(tf.spec)}</td></tr>
${tf.spec.timeout ? html`<tr><th>timeout</th><td>${tf.spec.timeout} s</td></tr>` : ''}
${tf.spec.liveTraffic ? html`<tr><th>mode</th><td>live traffic${tf.spec.droppedOnly ? ', dropped only' : ''}</td></tr>` : ''}
<tr><th>started</th><td>${s?.startTime ?? '-'}</td></tr></table>
<h2>Results</h2>
${results.length ? results : html`<p class="muted" id="no-results">No observations${final ? '' : ' yet'}.</p>`}
<p><a href="/traceflow">New Traceflow</a></p>`,
  );
}
