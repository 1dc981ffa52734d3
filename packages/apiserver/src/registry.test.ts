import { describe, expect, it } from 'vitest';
import { ResourceRegistry } from './registry.js';

describe('ResourceRegistry', () => {
  it('refuses a verb without its handler operation and duplicate resources', () => {
    const r = new ResourceRegistry();
    expect(() =>
      r.register('g', 'v1', {
        name: 'things',
        kind: 'Thing',
        namespaced: false,
        verbs: ['watch'],
        handler: { list: () => ({}) },
      }),
    ).toThrow(expect.objectContaining({ code: 'APISERVER_REGISTRY_CONFLICT' }));
    r.register('g', 'v1', {
      name: 'things',
      kind: 'Thing',
      namespaced: false,
      verbs: ['list'],
      handler: { list: () => ({}) },
    });
    expect(() =>
      r.register('g', 'v1', {
        name: 'things',
        kind: 'Thing',
        namespaced: false,
        verbs: ['list'],
        handler: { list: () => ({}) },
      }),
    ).toThrow(expect.objectContaining({ code: 'APISERVER_REGISTRY_CONFLICT' }));
  });

  it('lists versions in registration order with the first preferred', () => {
    const r = new ResourceRegistry();
    r.declareGroupVersion('g', 'v1beta2');
    r.declareGroupVersion('g', 'v1beta1');
    expect(r.apiGroup('g')).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'g',
      versions: [
        { groupVersion: 'g/v1beta2', version: 'v1beta2' },
        { groupVersion: 'g/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'g/v1beta2', version: 'v1beta2' },
    });
    expect(r.apiResourceList('g', 'v1')).toBeUndefined();
    expect(r.apiResourceList('g', 'v1beta1')).toMatchObject({ resources: [] });
  });
});
