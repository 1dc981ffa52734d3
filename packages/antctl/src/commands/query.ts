import type { Command } from 'commander';
import { type AntctlDeps, requireMode, runContext } from '../context.js';
import { type OutputFormat, render } from '../output/format.js';
import {
  type EndpointQueryResponseJson,
  type EvaluationJson,
  evaluationTable,
  formatEndpointQuery,
  networkPolicyEvaluationRequest,
} from '../resources/query.js';
import { CONTROLPLANE, controllerDirectJson, controllerJson, outputOption } from './common.js';

export function addQueryCommand(program: Command, deps: AntctlDeps): void {
  const query = program
    .command('query')
    .summary('Execute a user-provided query')
    .description('Execute a user-provided query');

  query
    .command('endpoint')
    .aliases(['endpoints'])
    .summary('Filter network policies relevant to an endpoint.')
    .description(
      'Filter network policies relevant to an endpoint into three categories: network policies which apply to the endpoint and policies which select the endpoint in an ingress and/or egress rule. (controller mode)',
    )
    .option('-n, --namespace <ns>', "Namespace of the endpoint (defaults to 'default')")
    .option('-p, --pod <name>', 'Name of a Pod endpoint')
    .option('--insecure', 'Skip TLS verification when connecting to the controller from outside the cluster.')
    .addOption(outputOption('table'))
    .action(
      async (
        opts: { namespace?: string; pod?: string; insecure?: boolean; output: OutputFormat },
        cmd: Command,
      ) => {
        const ctx = runContext(deps, cmd, { insecure: opts.insecure });
        requireMode(ctx, 'controller', 'query endpoint');
        const resp = await controllerDirectJson<EndpointQueryResponseJson>(
          ctx,
          { path: '/endpoint', query: { namespace: opts.namespace, pod: opts.pod } },
          `endpoint ${opts.namespace ?? 'default'}/${opts.pod ?? ''}`,
        );
        ctx.out(opts.output === 'table' ? formatEndpointQuery(resp) : render(resp, opts.output));
      },
    );

  query
    .command('networkpolicyevaluation')
    .aliases(['networkpoliciesevaluation', 'networkpolicyeval', 'networkpolicieseval', 'netpoleval'])
    .summary('Analyze effective NetworkPolicy rules.')
    .description(
      'Analyze network policies in the cluster and return the rule expected to be effective on the source and destination endpoints provided. (controller mode)',
    )
    .option('-S, --source <ns/pod>', 'Source endpoint, specified by <Namespace>/<name>.')
    .option('-D, --destination <ns/pod>', 'Destination endpoint, specified by <Namespace>/<name>.')
    .addOption(outputOption('table'))
    .action(async (opts: { source?: string; destination?: string; output: OutputFormat }, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      requireMode(ctx, 'controller', 'query networkpolicyevaluation');
      const body = networkPolicyEvaluationRequest(opts.source, opts.destination);
      const resp = await controllerJson<EvaluationJson>(
        ctx,
        { method: 'POST', path: `${CONTROLPLANE}/networkpolicyevaluation`, body },
        'networkpolicyevaluation',
      );
      ctx.out(render(resp, opts.output, () => evaluationTable(resp)));
    });
}
