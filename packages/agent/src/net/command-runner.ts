import { execFile } from 'node:child_process';
import { AgentError } from '../errors.js';

export interface RunOptions {
  input?: string;
  env?: Readonly<Record<string, string>>;
  timeoutMs?: number;
}

/**
 * Runs host commands (ip, iptables-restore, ethtool, IPAM plugins) in the Node's network
 * namespace. In production the agent runs inside it and commands run as they are; tests run the
 * agent in the test process and point the runner at a netns Node, so everything the agent does to
 * the host goes through this one seam.
 */
export interface CommandRunner {
  run(argv: readonly string[], options?: RunOptions): Promise<string>;
}

export class ExecCommandRunner implements CommandRunner {
  /**
   * @param netns a named network namespace (/var/run/netns/<name>) to run commands in, or none.
   * nsenter switches only the network namespace; `ip netns exec` would also set up a mount
   * namespace per command, which costs more than the command itself when Pods start in bursts.
   */
  constructor(private readonly netns?: string) {}

  run(argv: readonly string[], options: RunOptions = {}): Promise<string> {
    const full = this.netns ? inNetnsPath(`/var/run/netns/${this.netns}`, argv) : [...argv];
    const [file, ...args] = full;
    return new Promise((resolve, reject) => {
      const child = execFile(
        file!,
        args,
        {
          env: options.env
            ? { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin', ...options.env }
            : process.env,
          timeout: options.timeoutMs ?? 30_000,
          maxBuffer: 16 * 1024 * 1024,
        },
        (error, stdout, stderr) => {
          if (error) {
            const err = new AgentError(
              'AGENT_COMMAND_FAILED',
              `${argv.join(' ')}: ${stderr.trim() || error.message}`,
              {
                cause: error,
              },
            );
            Object.assign(err, { stdout, stderr, exitCode: (error as { code?: unknown }).code });
            reject(err);
            return;
          }
          resolve(stdout);
        },
      );
      if (options.input !== undefined) child.stdin?.end(options.input);
    });
  }
}

/** The argv that runs `argv` inside the network namespace at `path` (a Pod's CNI_NETNS). */
export function inNetnsPath(path: string, argv: readonly string[]): string[] {
  return ['nsenter', `--net=${path}`, '--', ...argv];
}
