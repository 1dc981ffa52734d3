// `antctl get stats <kind>`: NetworkPolicy traffic statistics from stats.antrea.io/v1alpha1. Antrea's
// antctl has no such command (users run `kubectl get netpolstats`); it is here so one tool shows a
// policy and its counters, with the same columns kubectl prints.
import type { Command } from 'commander';
import { type AntctlDeps, requireMode, runContext } from '../context.js';
import { AntctlError } from '../errors.js';
import { type OutputFormat, render } from '../output/format.js';
import type { TableRows } from '../output/table.js';
import { controllerJson, itemsOf, outputOption, STATS } from './common.js';

interface StatsJson {
  metadata: { name: string; namespace?: string; creationTimestamp?: string };
  trafficStats?: { packets?: number; bytes?: number; sessions?: number };
  ruleTrafficStats?: {
    name?: string;
    trafficStats?: { packets?: number; bytes?: number; sessions?: number };
  }[];
}

/** kind argument -> resource, namespaced; aliases as the CRD short names users know. */
export const STATS_KINDS: Readonly<Record<string, { resource: string; namespaced: boolean }>> = {
  networkpolicy: { resource: 'networkpolicystats', namespaced: true },
  netpol: { resource: 'networkpolicystats', namespaced: true },
  k8snp: { resource: 'networkpolicystats', namespaced: true },
  acnp: { resource: 'antreaclusternetworkpolicystats', namespaced: false },
  antreaclusternetworkpolicy: { resource: 'antreaclusternetworkpolicystats', namespaced: false },
  annp: { resource: 'antreanetworkpolicystats', namespaced: true },
  antreanetworkpolicy: { resource: 'antreanetworkpolicystats', namespaced: true },
};

export function statsTable(list: readonly StatsJson[], namespaced: boolean): TableRows {
  return {
    header: namespaced
      ? ['NAMESPACE', 'NAME', 'SESSIONS', 'PACKETS', 'BYTES']
      : ['NAME', 'SESSIONS', 'PACKETS', 'BYTES'],
    rows: list.map((s) => {
      const t = s.trafficStats ?? {};
      const counters = [String(t.sessions ?? 0), String(t.packets ?? 0), String(t.bytes ?? 0)];
      return namespaced
        ? [s.metadata.namespace ?? '', s.metadata.name, ...counters]
        : [s.metadata.name, ...counters];
    }),
    sortRows: true,
  };
}

export function addStatsCommand(get: Command, deps: AntctlDeps): void {
  get
    .command('stats')
    .summary('Print NetworkPolicy traffic statistics')
    .description(
      `Print traffic statistics (sessions, packets, bytes) of NetworkPolicies from stats.antrea.io/v1alpha1. Kinds: ${Object.keys(STATS_KINDS).join(', ')}. (controller mode)`,
    )
    .argument('<kind>', 'networkpolicy|acnp|annp')
    .argument('[name]', 'statistics of one policy')
    .option('-n, --namespace <ns>', 'Namespace (for networkpolicy and annp); all Namespaces when absent')
    .addOption(outputOption('table'))
    .action(
      async (
        kind: string,
        name: string | undefined,
        opts: { namespace?: string; output: OutputFormat },
        cmd: Command,
      ) => {
        const ctx = runContext(deps, cmd);
        requireMode(ctx, 'controller', 'get stats');
        const k = STATS_KINDS[kind.toLowerCase()];
        if (k === undefined) {
          throw new AntctlError(
            'ANTCTL_USAGE',
            `unknown stats kind "${kind}": want one of ${Object.keys(STATS_KINDS).join(', ')}`,
          );
        }
        const nsPath =
          k.namespaced && opts.namespace ? `/namespaces/${encodeURIComponent(opts.namespace)}` : '';
        if (name !== undefined && k.namespaced && !opts.namespace) {
          throw new AntctlError(
            'ANTCTL_USAGE',
            `a Namespace is needed with -n to get the ${k.resource} of one policy`,
          );
        }
        const path = `${STATS}${nsPath}/${k.resource}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
        const raw = await controllerJson<unknown>(
          ctx,
          { path },
          name === undefined ? k.resource : `${k.resource} "${name}"`,
          name,
        );
        const list = name === undefined ? itemsOf<StatsJson>(raw) : [raw as StatsJson];
        ctx.out(
          render(name === undefined ? list : list[0], opts.output, () => statsTable(list, k.namespaced)),
        );
      },
    );
}
