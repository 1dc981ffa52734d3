import { describe, expect, it } from 'vitest';
import { ServiceStore } from './service-store.js';
import { service, slice } from './test-objects.js';

const taken = (store: ServiceStore) => [...store.takeTouched()].sort();

describe('ServiceStore', () => {
  it('touches the Service an event concerns, and both Services of a relabelled slice', () => {
    const store = new ServiceStore();
    store.upsertService(service('web'));
    store.upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }]));
    expect(taken(store)).toEqual(['default/web']);
    expect(taken(store)).toEqual([]);

    store.upsertSlice(slice('s1', 'api', [{ ip: '10.10.0.7' }]));
    expect(taken(store)).toEqual(['default/api', 'default/web']);
    expect(store.slicesOf('default/web')).toEqual([]);
    expect(store.slicesOf('default/api')).toHaveLength(1);

    expect(store.removeSlice('default/s1')).toBe(true);
    expect(taken(store)).toEqual(['default/api']);
    expect(store.removeSlice('default/s1')).toBe(false);
    expect(store.removeService('default/nope')).toBe(false);
    expect(taken(store)).toEqual([]);
  });

  it('keeps a deleted Service’s slices for when it returns', () => {
    const store = new ServiceStore();
    store.upsertService(service('web'));
    store.upsertSlice(slice('s1', 'web', [{ ip: '10.10.0.7' }]));
    store.takeTouched();
    expect(store.removeService('default/web')).toBe(true);
    expect(taken(store)).toEqual(['default/web']);
    expect(store.service('default/web')).toBeUndefined();
    expect(store.slicesOf('default/web')).toHaveLength(1);
  });

  it('touch() hands keys back for the next take', () => {
    const store = new ServiceStore();
    store.touch(['default/web', 'default/api']);
    expect(taken(store)).toEqual(['default/api', 'default/web']);
  });
});
