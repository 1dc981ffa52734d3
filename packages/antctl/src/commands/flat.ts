// The flat (top-level) request commands: version and log-level. Their default output is yaml, as
// in Antrea, where only get/query commands default to tables.
import type { AntreaAgentInfo, AntreaControllerInfo } from '@antrea-ts/apis';
import type { Command } from 'commander';
import { type AntctlDeps, runContext } from '../context.js';
import { AntctlError } from '../errors.js';
import { type OutputFormat, render } from '../output/format.js';
import { agentVersionString, type VersionOut } from '../resources/info.js';
import { agentJson, controllerDirectJson, controllerJson, outputOption, SYSTEM } from './common.js';

export function addVersionCommand(program: Command, deps: AntctlDeps): void {
  program
    .command('version')
    .summary('Print version information')
    .description('Print version information of antctl and the Antrea component of the current mode')
    .addOption(outputOption('yaml'))
    .action(async (opts: { output: OutputFormat }, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      const out: VersionOut = {};
      let failure: unknown;
      try {
        if (ctx.mode.mode === 'agent') {
          // Antrea's agent serves /version (k8s version.Info); the Antrea-TS agent reports its
          // version in /agentinfo, so fall back to that before giving up.
          try {
            const v = await agentJson<{ gitVersion?: string; gitCommit?: string; gitTreeState?: string }>(
              ctx,
              { path: '/version' },
              'version',
            );
            out.agentVersion = agentVersionString(v);
          } catch (err) {
            if (!(AntctlError.is(err) && err.status === 404)) throw err;
            out.agentVersion =
              (await agentJson<AntreaAgentInfo>(ctx, { path: '/agentinfo' }, 'agentinfo')).version ?? '';
          }
        } else {
          const info = await controllerJson<AntreaControllerInfo>(
            ctx,
            { path: `${SYSTEM}/controllerinfos/antrea-controller` },
            'controllerinfo "antrea-controller"',
            'antrea-controller',
          );
          out.controllerVersion = info.version ?? '';
        }
      } catch (err) {
        // Like Antrea: the client version is printed even when the server cannot be asked, and
        // the command still fails.
        failure = err;
      }
      out.antctlVersion = deps.version;
      ctx.out(render(out, opts.output));
      if (failure !== undefined) throw failure;
    });
}

export function addLogLevelCommand(program: Command, deps: AntctlDeps): void {
  program
    .command('log-level')
    .summary('Show or set log verbosity level')
    .description(
      'Show or set the log verbosity level of the Antrea component of the current mode. ' +
        'Controller mode reaches the controller API directly (its Node IP, or loopback in its Pod).',
    )
    .argument('[level]', 'The integer log verbosity level to set')
    .addOption(outputOption('yaml'))
    .action(async (level: string | undefined, opts: { output: OutputFormat }, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      if (level !== undefined && !/^\d+$/.test(level)) {
        throw new AntctlError(
          'ANTCTL_USAGE',
          `invalid log level "${level}": want a non-negative integer such as 2`,
        );
      }
      const req = { path: '/loglevel', query: { level } };
      const value =
        ctx.mode.mode === 'agent'
          ? await agentJson<unknown>(ctx, req, 'loglevel')
          : await controllerDirectJson<unknown>(ctx, req, 'loglevel');
      ctx.out(render(value, opts.output));
    });
}
