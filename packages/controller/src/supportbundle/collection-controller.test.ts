import {
  decodeControlplaneObject,
  type SupportBundleCollection,
  type SupportBundleCollectionStatus,
} from '@antrea-ts/apis';
import { type ApiObject, type ApiRequest, ResourceRegistry } from '@antrea-ts/apiserver';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { protobufCodec } from '../protobuf-codec.js';
import { SupportBundleCollectionController } from './collection-controller.js';
import { registerCollectionResource } from './collection-resource.js';
import { collectionStatus, selectNodes } from './collection-status.js';
import type { CollectionApi } from './kube-collection-api.js';

const NODES = [
  { name: 'n1', labels: { role: 'worker' } },
  { name: 'n2', labels: { role: 'worker' } },
  { name: 'n3', labels: { role: 'edge' } },
];

class FakeApi implements CollectionApi {
  watchCollections?: CollectionApi['watchCollections'];
  collections: SupportBundleCollection[] = [];
  written: { name: string; status: SupportBundleCollectionStatus }[] = [];
  async listCollections() {
    return this.collections;
  }
  async listNodes() {
    return NODES;
  }
  async listExternalNodes() {
    return [{ name: 'vm1', namespace: 'vms', labels: {} }];
  }
  async readSecret(namespace: string, name: string) {
    return namespace === 'kube-system' && name === 'auth' ? { username: 'u', password: 'p4ss' } : undefined;
  }
  async writeStatus(name: string, status: SupportBundleCollectionStatus) {
    this.written.push({ name, status });
    const c = this.collections.find((x) => x.metadata.name === name);
    if (c) c.status = status;
  }
}

const sbc = (name: string, spec: Partial<SupportBundleCollection['spec']>): SupportBundleCollection => ({
  apiVersion: 'crd.antrea.io/v1alpha1',
  kind: 'SupportBundleCollection',
  metadata: { name, uid: `uid-${name}`, creationTimestamp: new Date('2026-11-21T12:00:00Z') },
  spec: {
    fileServer: { url: 'http://files/upload' },
    authentication: {
      authType: 'BasicAuthentication',
      authSecret: { name: 'auth', namespace: 'kube-system' },
    },
    ...spec,
  },
});

const cond = (s: SupportBundleCollectionStatus | undefined, type: string) =>
  s?.conditions?.find((c) => c.type === type)?.status;

describe('SupportBundleCollection selection and status', () => {
  it('picks Nodes by names or selector; nothing given picks all', () => {
    expect(selectNodes({ nodeNames: ['n2', 'gone'] }, NODES)).toEqual(['n2']);
    expect(selectNodes({ nodeSelector: { matchLabels: { role: 'worker' } } }, NODES)).toEqual(['n1', 'n2']);
    expect(
      selectNodes({ nodeNames: ['n3'], nodeSelector: { matchLabels: { role: 'worker' } } }, NODES),
    ).toEqual(['n1', 'n2', 'n3']);
    expect(selectNodes({}, NODES)).toEqual(['n1', 'n2', 'n3']);
    expect(selectNodes(undefined, NODES)).toEqual([]);
  });

  it('conditions follow the reports', () => {
    const now = new Date('2026-11-21T12:01:00Z');
    const s = collectionStatus(['a', 'b'], new Map([['a', { completed: true }]]), now);
    expect([s.collectedNodes, s.desiredNodes, cond(s, 'BundleCollected'), cond(s, 'Completed')]).toEqual([
      1,
      2,
      'True',
      'False',
    ]);
    const done = collectionStatus(
      ['a', 'b'],
      new Map([
        ['a', { completed: true }],
        ['b', { completed: false, error: 'disk full' }],
      ]),
      now,
      s,
    );
    expect(cond(done, 'Completed')).toBe('True');
    expect(done.conditions?.find((c) => c.type === 'CollectionFailure')).toMatchObject({
      status: 'True',
      message: 'b: disk full',
    });
  });
});

describe('SupportBundleCollectionController', () => {
  it('runs a pass on each CR event and each report, not only at the resync', async () => {
    const api = new FakeApi();
    let changed: (() => void) | undefined;
    let watching = false;
    api.watchCollections = (cb) => {
      changed = cb;
      watching = true;
      return async () => {
        watching = false;
      };
    };
    const c = new SupportBundleCollectionController({
      api,
      logger: pino({ level: 'silent' }),
      now: () => new Date('2026-11-21T12:05:00Z'),
      resyncMs: 3_600_000,
    });
    c.start();
    const until = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 5 });
    api.collections = [sbc('c1', { nodes: { nodeNames: ['n1'] } })];
    changed?.();
    await until(() => expect([...(c.store.get('c1')?.object.span ?? [])]).toEqual(['n1']));
    c.report({ metadata: { name: 'c1' }, nodes: [{ nodeName: 'n1', completed: true }] });
    await until(() => expect(cond(api.written.at(-1)?.status, 'Completed')).toBe('True'));
    await c.stop();
    expect(watching).toBe(false);
  });

  it('spans the targets with credentials from the Secret, takes reports, completes and forgets', async () => {
    const api = new FakeApi();
    api.collections = [
      sbc('c1', { nodes: { nodeSelector: { matchLabels: { role: 'worker' } } }, sinceTime: '1h' }),
    ];
    const c = new SupportBundleCollectionController({
      api,
      logger: pino({ level: 'silent' }),
      now: () => new Date('2026-11-21T12:05:00Z'),
    });
    await c.sync();
    const obj = c.store.get('c1')?.object;
    expect(obj).toMatchObject({
      expiredAt: '2026-11-21T13:00:00Z',
      sinceTime: '1h',
      authentication: {
        authType: 'BasicAuthentication',
        basicAuthentication: { username: 'u', password: 'p4ss' },
      },
    });
    expect([...(obj?.span ?? [])].sort()).toEqual(['n1', 'n2']);
    expect(cond(api.written.at(-1)?.status, 'Started')).toBe('True');

    c.report({ metadata: { name: 'c1' }, nodes: [{ nodeName: 'n1', completed: true }] });
    expect([...(c.store.get('c1')?.object.span ?? [])]).toEqual(['n2']);
    c.report({
      metadata: { name: 'c1' },
      nodes: [{ nodeName: 'n2', completed: false, error: 'sftp upload is not implemented' }],
    });
    await c.sync();
    const last = api.written.at(-1)?.status;
    expect([
      last?.collectedNodes,
      last?.desiredNodes,
      cond(last, 'Completed'),
      cond(last, 'CollectionFailure'),
    ]).toEqual([1, 2, 'True', 'True']);
    expect(c.store.get('c1')).toBeUndefined();
    // Nothing changes: nothing is written again.
    const writes = api.written.length;
    await c.sync();
    expect(api.written.length).toBe(writes);
  });

  it("serves Antrea's controlplane message: no authType, hostPublicKey as bytes, encodable as protobuf", async () => {
    const api = new FakeApi();
    const key = Buffer.from('ssh-ed25519 AAAA host-key');
    api.collections = [
      sbc('c1', {
        nodes: { nodeNames: ['n1'] },
        fileServer: { url: 'sftp://files/upload', hostPublicKey: key.toString('base64') },
      }),
    ];
    const c = new SupportBundleCollectionController({
      api,
      logger: pino({ level: 'silent' }),
      now: () => new Date('2026-11-21T12:05:00Z'),
    });
    await c.sync();
    const registry = new ResourceRegistry();
    registerCollectionResource(registry, c, pino({ level: 'silent' }));
    const def = registry.lookup('controlplane.antrea.io', 'v1beta2', 'supportbundlecollections')!;
    const wire = (await def.handler.get!({
      info: { name: 'c1' },
      user: {},
    } as unknown as ApiRequest)) as ApiObject;
    expect(wire).toMatchObject({
      fileServer: { url: 'sftp://files/upload', hostPublicKey: key },
      authentication: { basicAuthentication: { username: 'u', password: 'p4ss' } },
    });
    expect(wire['authentication']).not.toHaveProperty('authType');
    const { kind, object } = decodeControlplaneObject(protobufCodec.encode(wire));
    expect(kind).toBe('SupportBundleCollection');
    expect(object).toMatchObject({
      metadata: { name: 'c1', uid: 'uid-c1' },
      fileServer: { url: 'sftp://files/upload', hostPublicKey: new Uint8Array(key) },
      authentication: { basicAuthentication: { username: 'u', password: 'p4ss' } },
    });
  });

  it('expired collections fail their silent Nodes; ExternalNodes fail as unsupported', async () => {
    const api = new FakeApi();
    api.collections = [
      sbc('old', { nodes: { nodeNames: ['n1'] }, externalNodes: { namespace: 'vms' }, expirationMinutes: 1 }),
    ];
    const c = new SupportBundleCollectionController({
      api,
      logger: pino({ level: 'silent' }),
      now: () => new Date('2026-11-21T12:05:00Z'),
    });
    await c.sync();
    const s = api.written.at(-1)?.status;
    expect(cond(s, 'Completed')).toBe('True');
    expect(s?.conditions?.find((x) => x.type === 'CollectionFailure')?.message).toBe(
      'n1: collection expired; vms/vm1: ExternalNode agents are not supported by Antrea-TS',
    );
    expect(c.store.size).toBe(0);
  });

  it('a collection naming ExternalNodes gets them even after one naming none, in the same pass', async () => {
    const api = new FakeApi();
    api.collections = [
      sbc('nodes-only', { nodes: { nodeNames: ['n1'] } }),
      sbc('with-vms', { nodes: { nodeNames: ['n2'] }, externalNodes: { namespace: 'vms' } }),
    ];
    const c = new SupportBundleCollectionController({
      api,
      logger: pino({ level: 'silent' }),
      now: () => new Date('2026-11-21T12:01:00Z'),
    });
    await c.sync();
    const s = api.written.filter((w) => w.name === 'with-vms').at(-1)?.status;
    expect(s?.desiredNodes).toBe(2);
    expect(s?.conditions?.find((x) => x.type === 'CollectionFailure')?.message).toBe(
      'vms/vm1: ExternalNode agents are not supported by Antrea-TS',
    );
  });
});
