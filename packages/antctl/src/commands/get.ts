import type { AntreaAgentInfo, AntreaControllerInfo } from '@antrea-ts/apis';
import { type Command, Option } from 'commander';
import { type AntctlDeps, requireMode, runContext } from '../context.js';
import { AntctlError } from '../errors.js';
import { type OutputFormat, render } from '../output/format.js';
import {
  addressGroupOut,
  addressGroupTable,
  appliedToGroupOut,
  appliedToGroupTable,
  filterPolicies,
  type GroupJson,
  type NetworkPolicyJson,
  networkPolicyTable,
  POLICY_TYPE_FLAG_VALUES,
  policyTypeFromFlag,
  sortGroups,
  sortPolicies,
} from '../resources/controlplane.js';
import {
  agentInfoTable,
  controllerInfoOut,
  controllerInfoTable,
  type FeatureGateJson,
  formatFeatureGates,
  ovsFlowsTable,
  type PodInterfaceJson,
  podInterfaceTable,
} from '../resources/info.js';
import {
  agentJson,
  CONTROLPLANE,
  controllerDirectJson,
  controllerJson,
  itemsOf,
  outputOption,
  SYSTEM,
} from './common.js';
import { addFqdnCacheCommand } from './fqdncache.js';
import { addStatsCommand } from './stats.js';

interface NetpolOpts {
  output: OutputFormat;
  namespace?: string;
  source?: string;
  pod?: string;
  type?: string;
  sortBy?: string;
}

/** `get networkpolicy|netpol [name]`: controller resources, or the agent's /networkpolicies. */
function networkPolicy(get: Command, deps: AntctlDeps): void {
  get
    .command('networkpolicy')
    .aliases(['networkpolicies', 'netpol'])
    .summary('Print control plane NetworkPolicies')
    .description(
      "Print control plane NetworkPolicies. 'namespace' is required if 'pod' is provided.\n" +
        'In controller mode -S, -n and -T filter the list on the client; -p needs agent mode (use "antctl query endpoint" from outside).',
    )
    .argument('[name]', 'Get NetworkPolicy by name.')
    .option('-S, --source <name>', 'Get NetworkPolicies for which the source has the provided name.')
    .option('-n, --namespace <ns>', 'Get NetworkPolicies from specific Namespace.')
    .option(
      '-p, --pod <ns/pod>',
      'Get NetworkPolicies applied to the Pod. Pod format is podNamespace/podName.',
    )
    .addOption(
      new Option(
        '-T, --type <type>',
        'Get NetworkPolicies with specific type (type of the source policy)',
      ).choices(POLICY_TYPE_FLAG_VALUES),
    )
    .option(
      '--sort-by <jsonpath>',
      "Get resources in specific order ('effectivePriority' or a JSONPath such as .sourceRef.name).",
    )
    .addOption(outputOption('table'))
    .action(async (name: string | undefined, opts: NetpolOpts, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      const type = opts.type === undefined ? undefined : policyTypeFromFlag(opts.type);
      let policies: NetworkPolicyJson[];
      let single = false;
      if (ctx.mode.mode === 'agent') {
        const raw = await agentJson<unknown>(
          ctx,
          {
            path: '/networkpolicies',
            query: { name, source: opts.source, namespace: opts.namespace, pod: opts.pod, type: opts.type },
          },
          name === undefined ? 'networkpolicies' : `networkpolicy "${name}"`,
          name,
        );
        policies = itemsOf<NetworkPolicyJson>(raw);
        if (
          !Array.isArray(raw) &&
          (raw as { metadata?: unknown })?.metadata &&
          !(raw as { items?: unknown }).items
        ) {
          policies = [raw as NetworkPolicyJson];
        }
      } else {
        if (opts.pod !== undefined) {
          throw new AntctlError(
            'ANTCTL_USAGE',
            `--pod is supported in agent mode only; from outside the cluster run "antctl query endpoint -n ${opts.pod.split('/')[0]} -p ${opts.pod.split('/').slice(1).join('/') || opts.pod}"`,
          );
        }
        if (name !== undefined) {
          policies = [
            await controllerJson<NetworkPolicyJson>(
              ctx,
              { path: `${CONTROLPLANE}/networkpolicies/${encodeURIComponent(name)}` },
              `networkpolicy "${name}"`,
              name,
            ),
          ];
          single = true;
        } else {
          const list = await controllerJson<unknown>(
            ctx,
            { path: `${CONTROLPLANE}/networkpolicies` },
            'networkpolicies',
          );
          policies = filterPolicies(itemsOf<NetworkPolicyJson>(list), {
            source: opts.source,
            namespace: opts.namespace,
            type,
          });
        }
      }
      if (!single) policies = sortPolicies(policies, opts.sortBy);
      const value = single ? policies[0] : policies;
      ctx.out(render(value, opts.output, () => networkPolicyTable(policies)));
    });
}

interface GroupOpts {
  output: OutputFormat;
  sortBy?: string;
}

function groupCommand(
  get: Command,
  deps: AntctlDeps,
  spec: {
    use: string;
    aliases: string[];
    summary: string;
    resource: 'addressgroups' | 'appliedtogroups';
  },
): void {
  const isAddress = spec.resource === 'addressgroups';
  get
    .command(spec.use)
    .aliases(spec.aliases)
    .summary(spec.summary)
    .description(`${spec.summary} (sorted by name unless --sort-by gives a JSONPath such as .metadata.name)`)
    .argument('[name]', 'Retrieve resource by name')
    .option('--sort-by <jsonpath>', 'Get resources in specific order.')
    .addOption(outputOption('table'))
    .action(async (name: string | undefined, opts: GroupOpts, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      const subject = name === undefined ? spec.resource : `${spec.use} "${name}"`;
      let groups: GroupJson[];
      let single = name !== undefined;
      if (ctx.mode.mode === 'agent') {
        const raw = await agentJson<unknown>(
          ctx,
          { path: `/${spec.resource}`, query: { name } },
          subject,
          name,
        );
        if (
          !Array.isArray(raw) &&
          (raw as { metadata?: unknown })?.metadata &&
          !(raw as { items?: unknown }).items
        ) {
          groups = [raw as GroupJson];
        } else {
          groups = itemsOf<GroupJson>(raw);
          single = false;
        }
      } else if (name !== undefined) {
        groups = [
          await controllerJson<GroupJson>(
            ctx,
            { path: `${CONTROLPLANE}/${spec.resource}/${encodeURIComponent(name)}` },
            subject,
            name,
          ),
        ];
      } else {
        groups = itemsOf<GroupJson>(
          await controllerJson<unknown>(ctx, { path: `${CONTROLPLANE}/${spec.resource}` }, subject),
        );
      }
      if (!single) groups = sortGroups(groups, opts.sortBy);
      if (isAddress) {
        const out = groups.map(addressGroupOut);
        ctx.out(render(single ? out[0] : out, opts.output, () => addressGroupTable(out)));
      } else {
        const out = groups.map(appliedToGroupOut);
        ctx.out(render(single ? out[0] : out, opts.output, () => appliedToGroupTable(out)));
      }
    });
}

export function addGetCommand(program: Command, deps: AntctlDeps): Command {
  const get = program
    .command('get')
    .summary('Get the status or resource of a topic')
    .description('Get the status or resource of a topic');
  networkPolicy(get, deps);
  groupCommand(get, deps, {
    use: 'appliedtogroup',
    aliases: ['appliedtogroups', 'atg'],
    summary: 'Print appliedto groups',
    resource: 'appliedtogroups',
  });
  groupCommand(get, deps, {
    use: 'addressgroup',
    aliases: ['addressgroups', 'ag'],
    summary: 'Print address groups',
    resource: 'addressgroups',
  });

  get
    .command('controllerinfo')
    .aliases(['controllerinfos', 'ci'])
    .summary("Print Antrea controller's basic information")
    .description(
      "Print Antrea controller's basic information including version, deployment, NetworkPolicy controller, ControllerConditions, etc. (controller mode)",
    )
    .addOption(outputOption('table'))
    .action(async (opts: { output: OutputFormat }, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      requireMode(ctx, 'controller', 'get controllerinfo');
      const info = await controllerJson<AntreaControllerInfo>(
        ctx,
        { path: `${SYSTEM}/controllerinfos/antrea-controller` },
        'controllerinfo "antrea-controller"',
        'antrea-controller',
      );
      ctx.out(render(controllerInfoOut(info), opts.output, () => controllerInfoTable(info)));
    });

  get
    .command('agentinfo')
    .aliases(['agentinfos', 'ai'])
    .summary("Print agent's basic information")
    .description(
      "Print agent's basic information including version, deployment, Node subnet, OVS info, AgentConditions, etc. (agent mode)",
    )
    .addOption(outputOption('table'))
    .action(async (opts: { output: OutputFormat }, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      requireMode(ctx, 'agent', 'get agentinfo');
      const info = await agentJson<AntreaAgentInfo>(ctx, { path: '/agentinfo' }, 'agentinfo');
      ctx.out(render(info, opts.output, () => agentInfoTable(info)));
    });

  get
    .command('podinterface')
    .aliases(['podinterfaces', 'pi'])
    .summary("Print Pod's network interface information")
    .description(
      'Print information about the network interface(s) created by the Antrea agent for the specified Pod. (agent mode)',
    )
    .argument('[name]', 'Retrieve Pod interface by name. If present, Namespace must be provided.')
    .option('-n, --namespace <ns>', 'Get Pod interfaces from specific Namespace')
    .addOption(outputOption('table'))
    .action(
      async (name: string | undefined, opts: { output: OutputFormat; namespace?: string }, cmd: Command) => {
        const ctx = runContext(deps, cmd);
        requireMode(ctx, 'agent', 'get podinterface');
        const list = itemsOf<PodInterfaceJson>(
          await agentJson<unknown>(
            ctx,
            { path: '/podinterfaces', query: { name, namespace: opts.namespace } },
            'podinterfaces',
          ),
        );
        ctx.out(render(list, opts.output, () => podInterfaceTable(list)));
      },
    );

  get
    .command('ovsflows')
    .aliases(['of'])
    .summary('Dump OVS flows')
    .description('Dump all the OVS flows or the flows installed for the specified entity. (agent mode)')
    .option('-n, --namespace <ns>', 'Namespace of the entity')
    .option('-p, --pod <name>', 'Name of a local Pod. If present, Namespace must be provided.')
    .option('-S, --service <name>', 'Name of a Service. If present, Namespace must be provided.')
    .option(
      '-N, --networkpolicy <name>',
      'NetworkPolicy name. Namespace must be provided for non-cluster-scoped policy types if a type is specified.',
    )
    .addOption(new Option('--type <type>', 'NetworkPolicy type.').choices(POLICY_TYPE_FLAG_VALUES))
    .option('-T, --table <tables>', 'Comma separated Antrea OVS flow table names or numbers')
    .option('--table-names-only', 'Print all Antrea OVS flow table names only, and nothing else')
    .option('-G, --groups <ids>', "Comma separated OVS group IDs. Use 'all' to dump all groups")
    .addOption(outputOption('table'))
    .action(async (opts: OvsFlowsOpts, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      requireMode(ctx, 'agent', 'get ovsflows');
      if ((opts.pod !== undefined || opts.service !== undefined) && opts.namespace === undefined) {
        throw new AntctlError(
          'ANTCTL_USAGE',
          'a Namespace must be provided with -n when -p/--pod or -S/--service is used',
        );
      }
      const list = itemsOf<{ flow?: string }>(
        await agentJson<unknown>(
          ctx,
          {
            path: '/ovsflows',
            query: {
              namespace: opts.namespace,
              pod: opts.pod,
              service: opts.service,
              networkpolicy: opts.networkpolicy,
              type: opts.type,
              table: opts.table,
              'table-names-only': opts.tableNamesOnly ? '' : undefined,
              groups: opts.groups,
            },
          },
          'ovsflows',
        ),
      );
      ctx.out(render(list, opts.output, () => ovsFlowsTable(list)));
    });

  get
    .command('featuregates')
    .aliases(['fg'])
    .summary('Print Antrea feature gates')
    .description(
      'Print Antrea feature gates info (controller mode: controller and agent gates from the controller API; agent mode: the agent gates)',
    )
    .option('--insecure', 'Skip TLS verification when connecting to Antrea API.')
    .action(async (opts: { insecure?: boolean }, cmd: Command) => {
      const ctx = runContext(deps, cmd, { insecure: opts.insecure });
      const gates =
        ctx.mode.mode === 'agent'
          ? await agentJson<FeatureGateJson[]>(ctx, { path: '/featuregates' }, 'featuregates')
          : await controllerDirectJson<FeatureGateJson[]>(ctx, { path: '/featuregates' }, 'featuregates');
      ctx.out(formatFeatureGates(gates ?? []));
    });

  addFqdnCacheCommand(get, deps);
  addStatsCommand(get, deps);
  return get;
}

interface OvsFlowsOpts {
  output: OutputFormat;
  namespace?: string;
  pod?: string;
  service?: string;
  networkpolicy?: string;
  type?: string;
  table?: string;
  tableNamesOnly?: boolean;
  groups?: string;
}
