// lab: the local Antrea-TS cluster. Composition root and the only place that prints: every command
// drives @antrea-ts/lab, whose components log to files under the state dir.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  connectivityMatrix,
  deployDemo,
  formatMatrix,
  Lab,
  type LabOptions,
  type LabStatus,
  parseLabels,
  parsePodRef,
  parsePorts,
  repoArtifacts,
} from '@antrea-ts/lab';
import { Command, InvalidArgumentError, Option } from 'commander';
import { type Logger, pino } from 'pino';
import { loadOptions, parseCount } from './options.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const env = loadOptions(process.env, process.getuid?.() ?? 0);
const out = (text: string) => process.stdout.write(`${text}\n`);

function logger(stateDir: string, level: string): Logger {
  // Reading commands against no lab must not leave a state dir behind: `up` makes it.
  if (!existsSync(stateDir)) return pino({ level: 'silent' });
  const dir = join(stateDir, 'logs');
  mkdirSync(dir, { recursive: true });
  return pino({ level }, pino.destination({ dest: join(dir, 'lab.log'), mkdir: true, sync: true }));
}

function labOptions(cmd: Command): LabOptions {
  const g = cmd.optsWithGlobals<{ stateDir: string; logLevel: string; instance: number }>();
  return {
    stateDir: g.stateDir,
    instance: g.instance,
    artifacts: repoArtifacts(ROOT, env.kubeBinDir),
    logger: logger(g.stateDir, g.logLevel),
  };
}

function instance(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 99) throw new InvalidArgumentError('want an integer from 0 to 99');
  return n;
}

function count(value: string): number {
  try {
    return parseCount(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

const program = new Command('lab')
  .description(
    'The local Antrea-TS lab: kube-apiserver, antrea-controller and netns Nodes with OVS and antrea-agent',
  )
  .option('--state-dir <dir>', 'where the lab keeps its state, kubeconfig and logs', env.defaultStateDir)
  .option(
    '--instance <k>',
    'lab instance: 0 is lab-*/lb*/198.19.0.0/24; tests use others to run beside it',
    instance,
    0,
  )
  .addOption(
    new Option('--log-level <level>', 'level of the lab log (logs/lab.log)')
      .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
  )
  .enablePositionalOptions()
  .showHelpAfterError();

program
  .command('up')
  .description('start a lab, deploy the demo and print its connectivity matrix')
  .option('--nodes <n>', 'number of Nodes', count, 2)
  .option('--cluster-cidr <cidr>', 'cluster CIDR for NodeIPAM', '10.244.0.0/16')
  .option('--no-demo', 'skip the demo namespaces, Pods and policies')
  .option('--no-controller', 'run without antrea-controller (connectivity only, no policy)')
  .action(
    async (o: { nodes: number; clusterCidr: string; demo: boolean; controller: boolean }, cmd: Command) => {
      // `up` makes the state dir, so that its own log goes there from the start.
      mkdirSync(join(cmd.optsWithGlobals<{ stateDir: string }>().stateDir, 'logs'), { recursive: true });
      const options = labOptions(cmd);
      // The components run detached and survive an interrupted `up`: say how to remove them.
      process.once('SIGINT', () => {
        process.stderr.write(
          '\nlab: interrupted; what started keeps running: `npm run lab -- down` removes it\n',
        );
        process.exit(130);
      });
      const t0 = Date.now();
      out(`Starting a ${o.nodes}-Node lab in ${options.stateDir} ...`);
      const lab = await Lab.up({
        ...options,
        nodes: o.nodes,
        clusterCidr: o.clusterCidr,
        controller: o.controller,
      });
      const upMs = Date.now() - t0;
      const state = lab.state;
      out(
        `Lab up in ${(upMs / 1000).toFixed(1)} s: ${state.nodes.length} Nodes, apiserver ${state.apiserver?.server}`,
      );
      for (const n of state.nodes) out(`  ${n.name}  ${n.nodeIp}  podCIDR ${n.podCidr}`);
      if (!state.controller) out('  antrea-controller: not running (no policy computation)');
      if (o.demo) {
        const t1 = Date.now();
        await deployDemo(lab);
        out(
          `\nDemo (namespaces prod, dev; K8s NetworkPolicy prod/db-allow-web; ACNP deny-dev-to-prod), deployed in ${((Date.now() - t1) / 1000).toFixed(1)} s:`,
        );
        await printMatrix(lab);
      }
      out(`\nkubectl --kubeconfig ${lab.kubeconfigPath} get pods -A -o wide`);
      out(`Logs: ${lab.layout.logDir}   Status: npm run lab -- status   Remove: npm run lab -- down`);
    },
  );

program
  .command('down')
  .description('remove the lab: processes, netns, links, state dir (safe twice, or after a crash)')
  .action(async (_o: unknown, cmd: Command) => {
    const g = cmd.optsWithGlobals<{ stateDir: string; instance: number }>();
    const report = await Lab.down({
      stateDir: g.stateDir,
      instance: g.instance,
      artifacts: repoArtifacts(ROOT, env.kubeBinDir),
      logger: pino({ level: 'silent' }),
    });
    out(`Stopped ${report.stopped.length} processes.`);
    if (report.leftovers.length > 0) out(`Also removed:\n  ${report.leftovers.join('\n  ')}`);
    out('Lab removed.');
  });

program
  .command('status')
  .description('components, health, versions and the log dir')
  .option('--json', 'print JSON')
  .action(async (o: { json?: boolean }, cmd: Command) => {
    const status = await Lab.attach(labOptions(cmd)).status();
    if (o.json) out(JSON.stringify(status, null, 2));
    else out(formatStatus(status));
  });

program
  .command('kubeconfig')
  .description('print the path of the admin kubeconfig')
  .action((_o: unknown, cmd: Command) => {
    out(Lab.attach(labOptions(cmd)).kubeconfigPath);
  });

const pod = program.command('pod').description('Pods as kubelet would run them (network part)');
pod
  .command('create <ns/name>')
  .description('create the Pod object, its netns, run the CNI ADD chain, write the Pod IP, start servers')
  .option('--node <name>', 'Node to run on (default: the least loaded)')
  .option('--labels <k=v,...>', 'Pod labels', '')
  .option('--ports <port/proto,...>', 'container ports served over TCP and UDP (e.g. 80/TCP,81/UDP)', '')
  .action(async (ref: string, o: { node?: string; labels: string; ports: string }, cmd: Command) => {
    const lab = Lab.attach(labOptions(cmd));
    const p = await lab.createPod({
      ...parsePodRef(ref),
      ...(o.node ? { node: o.node } : {}),
      labels: parseLabels(o.labels),
      ports: parsePorts(o.ports),
    });
    out(`${p.namespace}/${p.name} on ${p.node}: ${p.ips.join(', ')}`);
  });
pod
  .command('delete <ns/name>')
  .description('CNI DEL, stop the servers, delete the netns and the Pod')
  .action(async (ref: string, _o: unknown, cmd: Command) => {
    const { namespace, name } = parsePodRef(ref);
    await Lab.attach(labOptions(cmd)).deletePod(namespace, name);
    out(`${namespace}/${name} deleted`);
  });
pod
  .command('list')
  .description('the lab Pods with their Nodes and IPs')
  .action((_o: unknown, cmd: Command) => {
    for (const p of Lab.attach(labOptions(cmd)).state.pods) {
      out(`${`${p.namespace}/${p.name}`.padEnd(30)} ${p.node.padEnd(12)} ${p.ips.join(',')}`);
    }
  });

program
  .command('exec <ns/pod> <command...>')
  .description('run a command in the Pod network namespace (lab exec ns/pod -- ping -c1 10.244.1.2)')
  .passThroughOptions()
  .action((ref: string, command: string[], _o: unknown, cmd: Command) => {
    const { namespace, name } = parsePodRef(ref);
    // commander keeps the "--" that separates the command from lab's own options.
    const rest = command[0] === '--' ? command.slice(1) : command;
    const argv = Lab.attach(labOptions(cmd)).execArgv(namespace, name, rest);
    const r = spawnSync(argv[0]!, argv.slice(1), { stdio: 'inherit' });
    process.exitCode = r.status ?? 1;
  });

const node = program.command('node').description('add or remove lab Nodes');
node
  .command('add')
  .description('add a Node (netns, OVS, Node object, agent)')
  .action(async (_o: unknown, cmd: Command) => {
    const n = await Lab.attach(labOptions(cmd)).addNode();
    out(`${n.name} ${n.nodeIp} podCIDR ${n.podCidr}`);
  });
node
  .command('remove <name>')
  .description('remove a Node with its Pods')
  .action(async (name: string, _o: unknown, cmd: Command) => {
    await Lab.attach(labOptions(cmd)).removeNode(name);
    out(`${name} removed`);
  });

program
  .command('restart <component>')
  .description(
    'restart a component (antrea-controller, antrea-agent@<node>, ovs-vswitchd@<node>, kube-apiserver, ...) and wait for health',
  )
  .option('--crash', 'SIGKILL instead of SIGTERM')
  .action(async (name: string, o: { crash?: boolean }, cmd: Command) => {
    const lab = Lab.attach(labOptions(cmd));
    const t0 = Date.now();
    await lab.restart(name, { crash: o.crash ?? false });
    out(`${name} restarted; lab healthy after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

program
  .command('demo')
  .description('print the demo connectivity matrix again (deploys the demo when absent)')
  .action(async (_o: unknown, cmd: Command) => {
    const lab = Lab.attach(labOptions(cmd));
    await deployDemo(lab);
    await printMatrix(lab);
  });

/** Probes the demo matrix and prints it, with what explains the cells that differ. */
async function printMatrix(lab: Lab): Promise<void> {
  // Without agents watching the controller nothing will change: a short settle for the first
  // packets between Nodes, not the full wait for policy realization.
  const agents = await lab.connectedAgents();
  const report = await connectivityMatrix(lab, { settleMs: agents ? 20_000 : 3_000 });
  const nodeOf = (pod: string) => {
    const [ns, name] = pod.split('/') as [string, string];
    return lab.pod(ns, name).node;
  };
  out(formatMatrix(report, nodeOf));
  if (report.matches === report.total) {
    out(`All ${report.total} probes as the policies say.`);
    return;
  }
  out(
    `${report.matches}/${report.total} probes as the policies say: the others (✗) are not enforced on packets.`,
  );
  if (!agents) {
    out(
      lab.state.controller
        ? 'antrea-controller computed the policies (kubectl get acnp shows their desired Nodes), but no antrea-agent is connected to it: enforcement in the agent is not there yet.'
        : 'antrea-controller is not running: no policy is computed.',
    );
  }
}

function formatStatus(s: LabStatus): string {
  const lines = [
    `Lab in ${s.stateDir} (${s.phase})`,
    `  kube-apiserver   ${s.apiserver ?? '-'}`,
    `  antrea-controller ${s.controller ? `${s.controller.address}  APIService ${s.controller.apiServiceAvailable ? 'Available' : 'not available'}` : 'not running'}`,
    ...(s.controller ? [`  dashboard        ${s.controller.dashboard}`] : []),
    `  kubeconfig       ${s.kubeconfig}`,
    `  logs             ${s.logDir}`,
    'Nodes:',
    ...s.nodes.map(
      (n) =>
        `  ${n.name.padEnd(12)} ${n.nodeIp.padEnd(14)} podCIDR ${(n.podCidr ?? '-').padEnd(16)} agent ${n.agentReady ? 'ready' : 'NOT READY'}  pods ${n.pods}`,
    ),
    'Processes:',
    ...s.components.map(
      (c) =>
        `  ${c.name.padEnd(34)} pid ${String(c.pid).padEnd(8)} ${c.running ? 'running' : 'EXITED '}  ${c.log}`,
    ),
    'Versions:',
    ...Object.entries(s.versions).map(([k, v]) => `  ${k.padEnd(28)} ${v}`),
  ];
  return lines.join('\n');
}

program.parseAsync(process.argv).then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    const e = err as { code?: string; message?: string };
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') process.exit(0);
    process.stderr.write(`lab: ${e.code ? `[${e.code}] ` : ''}${e.message ?? String(err)}\n`);
    if (e.code === 'LAB_START_TIMEOUT' || e.code === 'LAB_CNI_FAILED') {
      process.stderr.write(
        `lab: logs in ${join(program.opts<{ stateDir: string }>().stateDir, 'logs')}; \`npm run lab -- down\` removes what started\n`,
      );
    }
    process.exit(1);
  },
);
