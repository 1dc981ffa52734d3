import { fileURLToPath } from 'node:url';
import { CRD_KINDS, type Egress, type ExternalIPPool, formatIP } from '@antrea-ts/apis';
import {
  EgressController,
  type InternalEgressGroup,
  KubeEgressWriter,
  makeEgressInformers,
  RamStore,
  systemClock,
} from '@antrea-ts/controller';
import { installCrds, type KubeCluster, poll, startKube } from '@antrea-ts/harness';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The Egress controller against a real kube-apiserver: pool IPs allocated into spec.egressIP,
// kept by a new controller (they live in the objects), released on delete; pool usage and the
// IPAllocated condition in status; EgressGroups per Node from real Pods and Namespaces.

/** Polls until `probe` is true (30 s). */
const until = (probe: () => Promise<boolean>) =>
  poll('condition', async () => (await probe()) || undefined, { timeoutMs: 30_000, intervalMs: 100 });

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const eg = CRD_KINDS.Egress;
const pool = CRD_KINDS.ExternalIPPool;

let kube: KubeCluster;
let api: CustomObjectsApi;
let core: CoreV1Api;

function newController() {
  const groups = new RamStore<InternalEgressGroup>('EgressGroup');
  const controller = new EgressController({
    informers: makeEgressInformers(kube.kubeConfig),
    writer: new KubeEgressWriter(kube.kubeConfig),
    groups,
    logger,
    clock: systemClock,
    retryMs: 100,
  });
  return { controller, groups };
}

const getEgress = async (name: string) =>
  (await api.getClusterCustomObject({
    group: eg.group,
    version: eg.version,
    plural: eg.plural,
    name,
  })) as Egress;
const getPool = async (name: string) =>
  (await api.getClusterCustomObject({
    group: pool.group,
    version: pool.version,
    plural: pool.plural,
    name,
  })) as ExternalIPPool;

async function createEgress(name: string, spec: Egress['spec']): Promise<void> {
  await api.createClusterCustomObject({
    group: eg.group,
    version: eg.version,
    plural: eg.plural,
    body: { apiVersion: eg.apiVersion, kind: 'Egress', metadata: { name }, spec },
  });
}

async function deleteEgress(name: string): Promise<void> {
  await api.deleteClusterCustomObject({ group: eg.group, version: eg.version, plural: eg.plural, name });
}

async function createPod(ns: string, name: string, node: string, ip: string, labels: Record<string, string>) {
  await core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, labels },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'none' }] },
    },
  });
  const pod = await core.readNamespacedPod({ name, namespace: ns });
  pod.status = { phase: 'Running', podIP: ip, podIPs: [{ ip }] };
  await core.replaceNamespacedPodStatus({ name, namespace: ns, body: pod });
}

beforeAll(async () => {
  kube = await startKube();
  await installCrds(kube, [crdDir]);
  api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
  await api.createClusterCustomObject({
    group: pool.group,
    version: pool.version,
    plural: pool.plural,
    body: {
      apiVersion: pool.apiVersion,
      kind: 'ExternalIPPool',
      metadata: { name: 'pool-a' },
      spec: { ipRanges: [{ start: '10.10.0.2', end: '10.10.0.4' }], nodeSelector: {} },
    },
  });
  for (const ns of ['prod', 'dev'])
    await core.createNamespace({ body: { metadata: { name: ns, labels: { env: ns } } } });
  await createPod('prod', 'web-1', 'node-1', '10.244.1.5', { app: 'web' });
  await createPod('prod', 'web-2', 'node-2', '10.244.2.5', { app: 'web' });
  await createPod('prod', 'db-1', 'node-1', '10.244.1.6', { app: 'db' });
  await createPod('dev', 'web-3', 'node-1', '10.244.1.7', { app: 'web' });
}, 120_000);

afterAll(async () => {
  await kube?.stop();
});

describe('Egress controller', () => {
  it('allocates pool IPs, keeps them across a restart, releases them on delete', async () => {
    const first = newController();
    await first.controller.start();
    try {
      await createEgress('eg-a', {
        appliedTo: { podSelector: { matchLabels: { app: 'web' } } },
        externalIPPool: 'pool-a',
      });
      await createEgress('eg-b', { appliedTo: { podSelector: {} }, externalIPPool: 'pool-a' });
      await until(async () => (await getEgress('eg-b')).spec.egressIP !== undefined);
      const a = (await getEgress('eg-a')).spec.egressIP;
      const b = (await getEgress('eg-b')).spec.egressIP;
      expect(new Set([a, b])).toEqual(new Set(['10.10.0.2', '10.10.0.3']));
      await until(async () => (await getPool('pool-a')).status?.usage?.used === 2);
      expect((await getPool('pool-a')).status?.usage).toEqual({ total: 3, used: 2 });
      await until(
        async () =>
          (await getEgress('eg-a')).status?.conditions?.some((c) => c.type === 'IPAllocated') === true,
      );
      expect((await getEgress('eg-a')).status?.conditions).toEqual([
        expect.objectContaining({
          type: 'IPAllocated',
          status: 'True',
          reason: 'Allocated',
          message: 'EgressIP is successfully allocated',
        }),
      ]);
    } finally {
      await first.controller.stop();
    }

    // A new controller (a restart) sees the IPs in the objects and hands out the remaining one.
    const second = newController();
    await second.controller.start();
    try {
      await createEgress('eg-c', { appliedTo: { podSelector: {} }, externalIPPool: 'pool-a' });
      await until(async () => (await getEgress('eg-c')).spec.egressIP !== undefined);
      expect((await getEgress('eg-c')).spec.egressIP).toBe('10.10.0.4');
      // The pool is exhausted: a fourth Egress gets AllocationError, until one is deleted.
      await createEgress('eg-d', { appliedTo: { podSelector: {} }, externalIPPool: 'pool-a' });
      await until(
        async () =>
          (await getEgress('eg-d')).status?.conditions?.some((c) => c.reason === 'AllocationError') === true,
      );
      expect((await getEgress('eg-d')).spec.egressIP).toBeUndefined();
      const freed = (await getEgress('eg-a')).spec.egressIP;
      await deleteEgress('eg-a');
      await until(async () => (await getEgress('eg-d')).spec.egressIP !== undefined);
      expect((await getEgress('eg-d')).spec.egressIP).toBe(freed);
      await until(
        async () =>
          (await getEgress('eg-d')).status?.conditions?.some(
            (c) => c.type === 'IPAllocated' && c.status === 'True',
          ) === true,
      );
    } finally {
      await second.controller.stop();
      for (const n of ['eg-b', 'eg-c', 'eg-d']) await deleteEgress(n);
    }
  }, 180_000);

  it('refuses an egressIP outside its pool with AllocationError, and keeps a static egressIP as is', async () => {
    const { controller } = newController();
    await controller.start();
    try {
      await createEgress('eg-outside', {
        appliedTo: { podSelector: {} },
        externalIPPool: 'pool-a',
        egressIP: '10.10.9.9',
      });
      await createEgress('eg-static', { appliedTo: { podSelector: {} }, egressIP: '10.10.9.9' });
      await until(
        async () => (await getEgress('eg-outside')).status?.conditions?.[0]?.reason === 'AllocationError',
      );
      expect((await getEgress('eg-outside')).status?.conditions?.[0]?.message).toBe(
        'Cannot allocate EgressIP from ExternalIPPool: IP 10.10.9.9 is not within the IP range of ExternalIPPool pool-a',
      );
      await controller.idle();
      expect((await getEgress('eg-static')).status?.conditions ?? []).toEqual([]);
    } finally {
      await controller.stop();
      await deleteEgress('eg-outside');
      await deleteEgress('eg-static');
    }
  }, 120_000);

  it('keeps one EgressGroup per Egress with its Pods per Node, following Pod and Namespace changes', async () => {
    const { controller, groups } = newController();
    await controller.start();
    const members = (node: string) =>
      (groups.get('eg-web')?.object.membersByNode.get(node) ?? []).map(
        (m) => `${m.pod?.namespace}/${m.pod?.name} ${(m.ips ?? []).map((ip) => formatIP(ip)).join(',')}`,
      );
    try {
      await createEgress('eg-web', {
        appliedTo: {
          podSelector: { matchLabels: { app: 'web' } },
          namespaceSelector: { matchLabels: { env: 'prod' } },
        },
        egressIP: '10.10.9.1',
      });
      await until(async () => groups.get('eg-web') !== undefined);
      expect(members('node-1')).toEqual(['prod/web-1 10.244.1.5']);
      expect(members('node-2')).toEqual(['prod/web-2 10.244.2.5']);
      expect([...(groups.get('eg-web')?.object.span ?? [])].sort()).toEqual(['node-1', 'node-2']);

      // dev becomes prod: its web Pod joins; web-2 relabelled: it leaves and node-2 leaves the span.
      await core.patchNamespace({
        name: 'dev',
        body: [{ op: 'replace', path: '/metadata/labels/env', value: 'prod' }],
      });
      await until(async () => members('node-1').length === 2);
      expect(members('node-1')).toEqual(['dev/web-3 10.244.1.7', 'prod/web-1 10.244.1.5']);
      await core.patchNamespacedPod({
        name: 'web-2',
        namespace: 'prod',
        body: [{ op: 'replace', path: '/metadata/labels/app', value: 'api' }],
      });
      await until(async () => members('node-2').length === 0);
      expect([...(groups.get('eg-web')?.object.span ?? [])]).toEqual(['node-1']);

      await deleteEgress('eg-web');
      await until(async () => groups.get('eg-web') === undefined);
    } finally {
      await controller.stop();
    }
  }, 120_000);
});
