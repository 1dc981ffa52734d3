import { describe, expect, it } from 'vitest';
import { KeyedSerializer } from './keyed-serializer.js';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every already-queued promise callback run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('KeyedSerializer', () => {
  it('runs tasks of one key one at a time, in arrival order', async () => {
    const s = new KeyedSerializer();
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const runs = gates.map((g, i) =>
      s.run('pod-a', async () => {
        log.push(`start ${i}`);
        await g.promise;
        log.push(`end ${i}`);
        return i;
      }),
    );
    await settle();
    expect(log).toEqual(['start 0']);
    gates[2]!.resolve(); // finishing out of order must not let task 2 start early
    await settle();
    expect(log).toEqual(['start 0']);
    gates[0]!.resolve();
    await settle();
    expect(log).toEqual(['start 0', 'end 0', 'start 1']);
    gates[1]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('runs tasks of different keys in parallel', async () => {
    const s = new KeyedSerializer();
    const started: string[] = [];
    const gate = deferred();
    const a = s.run('pod-a', async () => {
      started.push('a');
      await gate.promise;
    });
    const b = s.run('pod-b', async () => {
      started.push('b');
      await gate.promise;
    });
    await settle();
    expect(started).toEqual(['a', 'b']);
    expect(s.busyKeys).toBe(2);
    gate.resolve();
    await Promise.all([a, b]);
  });

  it('keeps going after a failed task and reports the failure to its caller only', async () => {
    const s = new KeyedSerializer();
    const failed = s.run('pod-a', async () => {
      throw new Error('ADD failed');
    });
    const next = s.run('pod-a', async () => 'DEL ran');
    await expect(failed).rejects.toThrow('ADD failed');
    expect(await next).toBe('DEL ran');
  });

  it('forgets a key once its last task settles', async () => {
    const s = new KeyedSerializer();
    await Promise.all([s.run('a', async () => 1), s.run('a', async () => 2), s.run('b', async () => 3)]);
    await settle();
    expect(s.busyKeys).toBe(0);
  });
});
