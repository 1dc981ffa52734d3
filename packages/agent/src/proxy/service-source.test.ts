import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { flakyListApiserver, until } from '../testing/flaky-list-apiserver.js';
import { InformerServiceSource } from './service-source.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('InformerServiceSource', () => {
  it('announces synced() only once both lists were read, after a failed list is retried', async () => {
    const api = await flakyListApiserver('/api/v1/services');
    cleanup.push(api.close);
    const source = new InformerServiceSource(api.kubeConfig, pino({ level: 'silent' }));
    cleanup.push(() => source.stop());
    let synced = 0;
    await source.start({
      upsertService: () => undefined,
      removeService: () => undefined,
      upsertSlice: () => undefined,
      removeSlice: () => undefined,
      synced: () => synced++,
    });
    expect(api.lists()).toBe(1);
    expect(synced).toBe(0);
    await until(() => synced > 0);
    expect(api.lists()).toBe(2);
    expect(synced).toBe(1);
  }, 15_000);
});
