import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './keyed-mutex.js';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('KeyedMutex', () => {
  it('serializes one key and runs different keys in parallel', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`${name}+`);
      await tick();
      log.push(`${name}-`);
    };
    await Promise.all([m.run('a', task('a1')), m.run('a', task('a2')), m.run('b', task('b1'))]);
    expect(log.indexOf('a1-')).toBeLessThan(log.indexOf('a2+'));
    expect(log.indexOf('b1+')).toBeLessThan(log.indexOf('a1-'));
    await tick();
    expect(m.activeKeys).toBe(0);
  });

  it('keeps going after a failed task', async () => {
    const m = new KeyedMutex();
    await expect(m.run('a', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await m.run('a', async () => 7)).toBe(7);
  });
});
