import type { CommandRunner, RunOptions } from '../net/command-runner.js';

/**
 * A CommandRunner for tests of `ip -batch` users: records each batch's input and answers it with
 * the next scripted stderr (a failure when there is one), after a few milliseconds so that
 * concurrent callers queue up as they would behind a real process.
 */
export class ScriptedIp implements CommandRunner {
  inputs: string[] = [];
  stderr: string[] = [];
  async run(_argv: readonly string[], o?: RunOptions): Promise<string> {
    this.inputs.push(o?.input ?? '');
    await new Promise((r) => setTimeout(r, 5));
    const stderr = this.stderr.shift() ?? '';
    if (stderr !== '') throw Object.assign(new Error('ip failed'), { stderr, exitCode: 1 });
    return '';
  }
}
