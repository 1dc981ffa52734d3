import { describe, expect, it } from 'vitest';
import { ScriptedIp } from '../testing/scripted-ip.js';
import { IpBatcher, parseBatchErrors } from './ip-batcher.js';

describe('parseBatchErrors', () => {
  it('attributes each error to the line ip reports and keeps unreported text apart', () => {
    const { byLine, trailing } = parseBatchErrors(
      'RTNETLINK answers: File exists\nCommand failed -:2\nCannot find device "x"\nCommand failed -:4\nError: argument "y" is wrong\n',
    );
    expect([...byLine]).toEqual([
      [2, 'RTNETLINK answers: File exists'],
      [4, 'Cannot find device "x"'],
    ]);
    expect(trailing).toBe('Error: argument "y" is wrong');
  });
});

describe('IpBatcher', () => {
  it('sends requests made while a batch runs together in the next one', async () => {
    const ip = new ScriptedIp();
    const b = new IpBatcher(ip);
    await Promise.all([b.run(['link del a']), b.run(['link del b']), b.run(['link del c', 'link del d'])]);
    expect(ip.inputs).toEqual(['link del a\n', 'link del b\nlink del c\nlink del d\n']);
  });

  /** `link del a` runs alone; b, c and d then go together in a second batch answered with `stderr`. */
  async function secondBatchFails(stderr: string): Promise<PromiseSettledResult<void>[]> {
    const ip = new ScriptedIp();
    const b = new IpBatcher(ip);
    const first = b.run(['link del a']);
    ip.stderr.push('', stderr);
    return Promise.allSettled([first, b.run(['link del b']), b.run(['link del c']), b.run(['link del d'])]);
  }

  it('fails only the caller whose line failed', async () => {
    const results = await secondBatchFails('Cannot find device "c"\nCommand failed -:2\n');
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
      code: 'AGENT_COMMAND_FAILED',
      message: 'ip link del c: Cannot find device "c"',
    });
  });

  it('fails the callers after the last reported line when ip gave up on the batch', async () => {
    const results = await secondBatchFails(
      'Cannot find device "b"\nCommand failed -:1\nError: argument "z" is wrong\n',
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected']);
    expect((results[3] as PromiseRejectedResult).reason.message).toContain('Error: argument "z" is wrong');
  });

  it('fails every caller when ip exits without saying which line failed (killed, say)', async () => {
    const killed = Object.assign(new Error('ip -force -batch -: exit 137'), { stderr: '', exitCode: 137 });
    const b = new IpBatcher({ run: () => Promise.reject(killed) });
    const results = await Promise.allSettled([b.run(['link del a']), b.run(['link del b'])]);
    expect(results).toEqual([
      { status: 'rejected', reason: killed },
      { status: 'rejected', reason: killed },
    ]);
  });

  it('rejects lines with newlines (they would become commands of their own)', () => {
    expect(() => new IpBatcher(new ScriptedIp()).run(['link del a\nlink del b'])).toThrow(/newline/);
  });
});
