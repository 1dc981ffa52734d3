import { Command, CommanderError, Option } from 'commander';
import { addCompletionCommand, cobraComplete } from './commands/completion.js';
import { addLogLevelCommand, addVersionCommand } from './commands/flat.js';
import { addGetCommand } from './commands/get.js';
import { addPacketCaptureCommand } from './commands/packetcapture.js';
import { addQueryCommand } from './commands/query.js';
import { addSupportBundleCommand } from './commands/supportbundle.js';
import { addTracePacketCommand } from './commands/trace-packet.js';
import { addTraceflowCommand } from './commands/traceflow.js';
import { type AntctlDeps, parseDuration } from './context.js';
import { AntctlError } from './errors.js';

/** Builds the whole command tree; nothing runs until parseAsync. */
export function buildProgram(deps: AntctlDeps): Command {
  const program = new Command(deps.programName ?? 'antctl');
  program
    .description(
      'antctl is the command line tool for Antrea that supports showing status of the Antrea controller ' +
        '(outside the cluster, through the Kubernetes API) or the Antrea agent (inside its Pod)',
    )
    // Antrea's persistent flags, with the same names and shorthands.
    .option('-k, --kubeconfig <path>', 'absolute path to the kubeconfig file')
    .addOption(
      new Option(
        '-t, --timeout <duration>',
        'time limit of the execution of the command (e.g. 10s, 1m)',
      ).argParser(parseDuration),
    )
    .option(
      '-s, --server <address>',
      'address and port of the API server, taking precedence over the default endpoint and the one set in kubeconfig',
    )
    .option('-v, --verbose', 'enable verbose output')
    .addOption(
      new Option('--mode <mode>', 'override the mode detected from POD_NAME: controller or agent').choices([
        'controller',
        'agent',
      ]),
    )
    .option('--agent-address <address>', 'agent API address in agent mode (default https://127.0.0.1:10350)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => deps.stdout.write(s),
      writeErr: (s) => deps.stderr.write(s),
    });
  addVersionCommand(program, deps);
  addLogLevelCommand(program, deps);
  addGetCommand(program, deps);
  addQueryCommand(program, deps);
  addTraceflowCommand(program, deps);
  addTracePacketCommand(program, deps);
  addSupportBundleCommand(program, deps);
  addPacketCaptureCommand(program, deps);
  addCompletionCommand(program, deps);
  // Every subcommand inherits output routing and error handling from the root.
  const inherit = (cmd: Command) => {
    for (const c of cmd.commands) {
      c.exitOverride().configureOutput({
        writeOut: (s) => deps.stdout.write(s),
        writeErr: (s) => deps.stderr.write(s),
      });
      c.showHelpAfterError('(run with --help for usage)');
      inherit(c);
    }
  };
  inherit(program);
  return program;
}

/**
 * Runs antctl with `argv` (arguments only, without node and script) and returns the exit status:
 * 0 success, 1 failure talking to or answered by a server, 2 usage errors.
 */
export async function runAntctl(argv: readonly string[], deps: AntctlDeps): Promise<number> {
  const program = buildProgram(deps);
  if (argv[0] === '__complete') {
    deps.stdout.write(cobraComplete(program, argv.slice(1)));
    return 0;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version output end here too; commander already wrote what it had to say.
      if (
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.help' ||
        err.code === 'commander.version'
      )
        return 0;
      if (err.code === 'commander.executeSubCommandAsync') return 0;
      return 2;
    }
    if (AntctlError.is(err)) {
      deps.stderr.write(`Error: ${err.message}\n`);
      return err.exitCode;
    }
    deps.stderr.write(`Error: ${(err as Error)?.message ?? String(err)}\n`);
    return 1;
  }
}
