import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { flakyListApiserver, until } from '../testing/flaky-list-apiserver.js';
import { InformerNodeSource } from './node-source.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('InformerNodeSource', () => {
  it('announces synced() only after a Node list was read, when the first one failed', async () => {
    const api = await flakyListApiserver('/api/v1/nodes');
    cleanup.push(api.close);
    const source = new InformerNodeSource(api.kubeConfig, pino({ level: 'silent' }));
    cleanup.push(() => source.stop());
    const synced: (readonly string[])[] = [];
    await source.start({
      upsert: () => undefined,
      remove: () => undefined,
      synced: (names) => synced.push(names),
    });
    expect(api.lists()).toBe(1);
    expect(synced).toEqual([]);
    await until(() => synced.length > 0);
    expect(api.lists()).toBe(2);
    expect(synced).toEqual([[]]);
  }, 15_000);
});
