// antrea-cni: run by the container runtime (for kubelet) for every Pod network event. A composition
// root only: it reads the process's environment and stdin, runs the plugin, and writes the outcome.
import {
  CniCode,
  CniError,
  CURRENT_CNI_VERSION,
  formatCniError,
  isOwnNetns,
  type PluginOutcome,
  runPlugin,
  socketAgentConnector,
} from '@antrea-ts/cni/plugin';
import { loadOptions } from './options.js';

const ABOUT = 'Antrea-TS CNI plugin 0.1.0';

async function readStdin(): Promise<Uint8Array> {
  // A terminal is a human running the binary (e.g. CNI_COMMAND=VERSION): do not wait for input.
  if (process.stdin.isTTY) return new Uint8Array(0);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function main(): Promise<PluginOutcome> {
  let options: ReturnType<typeof loadOptions>;
  try {
    options = loadOptions(process.env);
  } catch (err) {
    const cniErr = err instanceof CniError ? err : new CniError(CniCode.INTERNAL, String(err));
    return { exitCode: 1, stdout: formatCniError(cniErr, CURRENT_CNI_VERSION), stderr: '' };
  }
  return runPlugin({
    env: process.env,
    readStdin,
    agent: socketAgentConnector(options),
    isOwnNetns: (path) => isOwnNetns(path),
    about: ABOUT,
    bestEffortDel: options.bestEffortDel,
  });
}

const outcome = await main();
if (outcome.stderr !== '') process.stderr.write(outcome.stderr);
// The CNI contract: the result (or error) JSON on stdout, non-zero exit on failure. Exit explicitly
// once stdout is flushed so that no stray handle can hold the runtime waiting.
process.stdout.write(outcome.stdout, () => process.exit(outcome.exitCode));
