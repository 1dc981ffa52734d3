import { AgentError } from '../errors.js';
import { GroupCommit, type ItemOutcome } from '../util/group-commit.js';
import type { CommandRunner } from './command-runner.js';

/** `ip -batch` reports each failed line as "Command failed <file>:<line>" after the line's own error. */
const FAILED_LINE = /^Command failed [^:]*:(\d+)$/;

/** The failures of one `ip -force -batch` run: messages per failed line, and any unattributed text. */
export function parseBatchErrors(stderr: string): { byLine: Map<number, string>; trailing: string } {
  const byLine = new Map<number, string>();
  let pending: string[] = [];
  for (const line of stderr.split('\n')) {
    const m = FAILED_LINE.exec(line.trim());
    if (m) {
      byLine.set(Number(m[1]), pending.join('; ') || 'failed');
      pending = [];
    } else if (line.trim() !== '') pending.push(line.trim());
  }
  return { byLine, trailing: pending.join('; ') };
}

/**
 * The stderr of a failed `ip -batch` run, to attribute its failures by line; rethrows `err` when
 * there is none to read: a run that timed out, or that exited without a word (killed, say), leaves
 * every line in doubt, so every caller fails with it.
 */
export function batchStderr(err: unknown): string {
  const stderr = (err as { stderr?: unknown }).stderr;
  if (typeof stderr !== 'string' || stderr.trim() === '') throw err;
  return stderr;
}

/**
 * Runs iproute2 commands (`link add ...`, `link del ...`) from concurrent callers as one
 * `ip -force -batch -` process: commands requested while a batch runs go together in the next one.
 * A burst of Pod ADDs then costs one `ip` process instead of one per Pod. `-force` keeps going past
 * a failed line, and each failure is reported against its line, so only the caller whose command
 * failed sees an error. iproute2 exits outright on a malformed argument (no line reported): callers
 * whose lines come after the last reported one then fail too, as their lines may not have run.
 */
export class IpBatcher {
  private readonly group: GroupCommit<readonly string[]>;

  constructor(private readonly runner: CommandRunner) {
    this.group = new GroupCommit((requests) => this.runBatch(requests));
  }

  /** Runs `lines` (ip commands without the leading `ip`, e.g. `link del x`) in the next batch. */
  run(lines: readonly string[]): Promise<void> {
    for (const line of lines) {
      if (line.includes('\n'))
        throw new AgentError('AGENT_COMMAND_FAILED', 'ip batch line contains a newline');
    }
    return this.group.submit(lines);
  }

  private async runBatch(requests: readonly (readonly string[])[]): Promise<ItemOutcome[]> {
    const input = `${requests.flat().join('\n')}\n`;
    try {
      await this.runner.run(['ip', '-force', '-batch', '-'], { input });
      return requests.map(() => undefined);
    } catch (err) {
      const { byLine, trailing } = parseBatchErrors(batchStderr(err));
      const lastReported = Math.max(0, ...byLine.keys());
      let first = 1;
      return requests.map((lines) => {
        const last = first + lines.length - 1;
        const own: string[] = [];
        for (let n = first; n <= last; n++) {
          const msg = byLine.get(n);
          if (msg) own.push(`${lines[n - first]}: ${msg}`);
        }
        if (own.length === 0 && trailing !== '' && last > lastReported) own.push(trailing);
        first = last + 1;
        return own.length > 0
          ? new AgentError('AGENT_COMMAND_FAILED', `ip ${own.join('; ')}`, { cause: err })
          : undefined;
      });
    }
  }
}
