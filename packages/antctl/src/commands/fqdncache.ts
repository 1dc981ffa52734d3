// `antctl get fqdncache [--domain pattern]` (agent mode): the addresses the agent learned for the
// FQDNs its policies select, from the agent's /fqdncache (Antrea's agentapis.FQDNCacheResponse).
import type { Command } from 'commander';
import { type AntctlDeps, requireMode, runContext } from '../context.js';
import { type OutputFormat, render } from '../output/format.js';
import type { TableRows } from '../output/table.js';
import { agentJson, itemsOf, outputOption } from './common.js';

export interface FqdnCacheEntryJson {
  fqdnName?: string;
  ipAddress?: string;
  /** RFC 3339. */
  expirationTime?: string;
}

const RFC3339 = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i;

/**
 * An RFC 3339 time the way Antrea's table prints it (Go's time.Time String() after JSON decoding):
 * `2026-01-02 03:04:05.12 +0000 UTC`, the fraction without trailing zeros, a numeric offset as its
 * own zone name. Text that is no RFC 3339 time is shown as it came.
 */
export function goTimeString(text: string | undefined): string {
  if (text === undefined) return '0001-01-01 00:00:00 +0000 UTC';
  const m = RFC3339.exec(text);
  if (!m) return text;
  const [, date, time, fraction = '', zone = ''] = m;
  const digits = fraction.replace(/0+$/, '');
  const frac = digits === '' ? '' : `.${digits}`;
  const offset =
    zone.toUpperCase() === 'Z' ? '+0000 UTC' : `${zone.replace(':', '')} ${zone.replace(':', '')}`;
  return `${date} ${time}${frac} ${offset}`;
}

/** Antrea's FQDNCacheResponse table: its header, rows sorted. */
export function fqdnCacheTable(list: readonly FqdnCacheEntryJson[]): TableRows {
  return {
    header: ['FQDN', 'ADDRESS', 'EXPIRATION TIME'],
    rows: list.map((e) => [e.fqdnName ?? '', e.ipAddress ?? '', goTimeString(e.expirationTime)]),
    sortRows: true,
  };
}

export function addFqdnCacheCommand(get: Command, deps: AntctlDeps): void {
  get
    .command('fqdncache')
    .summary('Print fqdn cache')
    .description(
      'Print effective fqdn cache information including fqdn name, IP addresses, and expiration time (agent mode).\n' +
        'The --domain pattern matches whole names; * matches any characters, dots included.\n\n' +
        'Examples:\n  antctl get fqdncache\n  antctl get fqdncache --domain example.com\n  antctl get fqdncache --domain "*.antrea.io"',
    )
    .option('-d, --domain <pattern>', 'Get fqdn cache for only a specific domain')
    .addOption(outputOption('table'))
    .action(async (opts: { output: OutputFormat; domain?: string }, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      requireMode(ctx, 'agent', 'get fqdncache');
      const list = itemsOf<FqdnCacheEntryJson>(
        await agentJson<unknown>(ctx, { path: '/fqdncache', query: { domain: opts.domain } }, 'fqdncache'),
      );
      ctx.out(render(list, opts.output, () => fqdnCacheTable(list)));
    });
}
