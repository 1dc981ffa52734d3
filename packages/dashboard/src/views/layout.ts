import { html, type SafeHtml, trusted } from '../html.js';

export type Section = 'health' | 'policies' | 'traceflow';

const STYLE = trusted(`<style>
body{font-family:system-ui,sans-serif;margin:0;color:#1d2733;background:#f5f7fa}
header{background:#1d3c6e;color:#fff;padding:.6rem 1.2rem;display:flex;gap:1.5rem;align-items:center}
header a{color:#d7e3f7;text-decoration:none}header a.current{color:#fff;font-weight:600;border-bottom:2px solid #fff}
main{padding:1rem 1.2rem}h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.5rem}
table{border-collapse:collapse;background:#fff;margin-bottom:1rem}th,td{border:1px solid #d5dbe3;padding:.3rem .6rem;text-align:left;vertical-align:top;white-space:nowrap}
td.muted{white-space:normal}
th{background:#e8edf3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{padding:.1rem .45rem;border-radius:.3rem;font-size:.85rem;color:#fff;background:#6b7785}
.Healthy,.Realized,.Succeeded{background:#2e7d32}.Degraded,.Realizing,.Pending,.Running{background:#b26a00}
.Stale,.Failed,.Unknown{background:#c62828}
.error{color:#c62828;font-weight:600}.muted{color:#6b7785}
form.traceflow{display:grid;grid-template-columns:max-content 18rem;gap:.4rem .8rem;background:#fff;padding:1rem;border:1px solid #d5dbe3;width:max-content}
form.traceflow button{grid-column:2}
form.filter{margin:.5rem 0}
table.rules{margin:0}table.rules td,table.rules th{font-size:.85rem}
</style>`);

// Keeps a page current without a frontend framework: fetches the page again and swaps <main>,
// every data-refresh milliseconds, until the server marks the content final (a finished Traceflow),
// and not while a field in it has the focus.
const SCRIPT = trusted(`<script>
(function () {
  function schedule() {
    var main = document.querySelector('main');
    var every = Number(main && main.dataset.refresh);
    if (!every || main.dataset.final === 'true') return;
    setTimeout(function () {
      // Not while something in the page is being typed into (the policies filter).
      var focused = document.activeElement;
      if (focused && focused !== document.body && document.querySelector('main').contains(focused)) return schedule();
      fetch(location.href, { headers: { accept: 'text/html' } })
        .then(function (r) { return r.text(); })
        .then(function (text) {
          var next = new DOMParser().parseFromString(text, 'text/html').querySelector('main');
          if (next) document.querySelector('main').replaceWith(next);
        })
        .catch(function () {})
        .finally(schedule);
    }, every);
  }
  schedule();
})();
</script>`);

const NAV: [Section, string, string][] = [
  ['health', '/', 'Cluster health'],
  ['policies', '/policies', 'Policies'],
  ['traceflow', '/traceflow', 'Traceflow'],
];

export interface PageOptions {
  title: string;
  section: Section;
  /** Milliseconds between refreshes of <main>; 0 for none. */
  refreshMs: number;
  /** No more refreshes (the content will not change). */
  final?: boolean;
}

export function page(opts: PageOptions, body: SafeHtml): string {
  const nav = NAV.map(
    ([s, href, label]) => html`<a href="${href}" class="${s === opts.section ? 'current' : ''}">${label}</a>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${opts.title} · Antrea-TS</title>${STYLE}</head>
<body><header><strong>Antrea-TS</strong>${nav}</header>
<main data-refresh="${opts.refreshMs}" data-final="${opts.final ? 'true' : 'false'}">${body}</main>
${SCRIPT}</body></html>`.text;
}

export function badge(state: string): SafeHtml {
  return html`<span class="badge ${state}">${state}</span>`;
}

export function age(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

export function errorPage(title: string, message: string): string {
  return page(
    { title, section: 'health', refreshMs: 0 },
    html`<h1>${title}</h1><p class="error">${message}</p>`,
  );
}
