import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ShellCommandRunner } from './shell-runner.js';

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
}

describe('ShellCommandRunner', () => {
  let runner: ShellCommandRunner | undefined;
  afterEach(() => runner?.stop());

  it('runs commands with arguments quoted, stdin, env, exit codes and stderr', async () => {
    runner = new ShellCommandRunner();
    expect(await runner.run(['echo', "it's a $HOME; `x`"])).toBe("it's a $HOME; `x`\n");
    expect(await runner.run(['cat'], { input: 'line1\nline2\n' })).toBe('line1\nline2\n');
    expect(await runner.run(['sh', '-c', 'echo "$FOO-$HOME"'], { env: { FOO: 'bar' } })).toBe('bar-\n');
    await expect(runner.run(['sh', '-c', 'echo out; echo bad >&2; exit 3'])).rejects.toMatchObject({
      code: 'AGENT_COMMAND_FAILED',
      exitCode: 3,
      stdout: 'out\n',
      message: expect.stringContaining('bad'),
    });
  });

  it('fails a command whose input cannot be written, with the reason', async () => {
    const base = mkdtempSync(join(tmpdir(), 'antrea-ts-shbase-'));
    runner = new ShellCommandRunner({ tmpDir: base });
    rmSync(base, { recursive: true, force: true });
    await expect(runner.run(['cat'], { input: 'x' })).rejects.toMatchObject({
      code: 'AGENT_COMMAND_FAILED',
      message: expect.stringContaining('writing its input'),
    });
  });

  it('runs commands in parallel (the first waits for a file only the second creates)', async () => {
    runner = new ShellCommandRunner();
    const flag = `/tmp/antrea-ts-sh-flag-${process.pid}-${Date.now()}`;
    const waiting = runner.run(
      ['sh', '-c', `while [ ! -e ${flag} ]; do sleep 0.01; done; rm ${flag}; echo waited`],
      {
        timeoutMs: 5_000,
      },
    );
    await runner.run(['touch', flag]);
    expect(await waiting).toBe('waited\n');
  });
});

describe('ShellCommandRunner process hygiene', () => {
  it('reaps finished commands: no zombie per command under the long-lived shell', async () => {
    const before = new Set(childrenOf(process.pid));
    const runner = new ShellCommandRunner();
    try {
      await runner.run(['true']);
      const sh = childrenOf(process.pid).find((pid) => !before.has(pid))!;
      for (let round = 0; round < 3; round++)
        await Promise.all(Array.from({ length: 50 }, () => runner.run(['true'])));
      // The last jobs may still be exiting when their results arrive: give them a moment.
      await new Promise((r) => setTimeout(r, 300));
      expect(childrenOf(sh).length).toBeLessThan(5);
    } finally {
      runner.stop();
    }
  });
});

describe('ShellCommandRunner scratch dirs', () => {
  it('removes the scratch dir of a runner whose process is gone, and keeps live ones', () => {
    const base = mkdtempSync(join(tmpdir(), 'antrea-ts-shbase-'));
    try {
      // pid 2^22 + 1 is above Linux's pid_max limit: no process can have it.
      const orphan = join(base, 'antrea-ts-sh-4194305-abc');
      const live = join(base, `antrea-ts-sh-${process.pid}-def`);
      mkdirSync(orphan);
      mkdirSync(live);
      const runner = new ShellCommandRunner({ tmpDir: base });
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(live)).toBe(true);
      runner.stop();
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
