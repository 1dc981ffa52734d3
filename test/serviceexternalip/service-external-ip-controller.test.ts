import { fileURLToPath } from 'node:url';
import { CRD_KINDS, type Egress, type ExternalIPPool } from '@antrea-ts/apis';
import {
  EgressController,
  type InternalEgressGroup,
  KubeEgressWriter,
  KubeServiceExternalIPWriter,
  makeEgressInformers,
  makeServiceExternalIPInformers,
  RamStore,
  ServiceExternalIPController,
  systemClock,
} from '@antrea-ts/controller';
import { installCrds, type KubeCluster, poll, startKube } from '@antrea-ts/harness';
import { CoreV1Api, CustomObjectsApi, type V1Service } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The ServiceExternalIP controller against a real kube-apiserver, wired to the Egress controller as
// antrea-controller wires them: annotated LoadBalancer Services get pool IPs in
// status.loadBalancer.ingress (spec.loadBalancerIP honoured inside the pool), a new controller keeps
// them (read back from the Services), the IP goes when the annotation or the Service goes, and
// Egresses and Services never get the same IP while the pool's usage counts both.

const until = (what: string, probe: () => Promise<boolean>) =>
  poll(what, async () => (await probe()) || undefined, { timeoutMs: 30_000, intervalMs: 100 });

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const POOL = CRD_KINDS.ExternalIPPool;
const EGRESS = CRD_KINDS.Egress;
const NS = 'lb';
const ANNOTATION = 'service.antrea.io/external-ip-pool';

let kube: KubeCluster;
let api: CustomObjectsApi;
let core: CoreV1Api;

/** Both controllers sharing the pools, as AntreaController builds them. */
async function startControllers() {
  const egress = new EgressController({
    informers: makeEgressInformers(kube.kubeConfig),
    writer: new KubeEgressWriter(kube.kubeConfig),
    groups: new RamStore<InternalEgressGroup>('EgressGroup'),
    logger,
    clock: systemClock,
    retryMs: 100,
  });
  const services = new ServiceExternalIPController({
    informers: makeServiceExternalIPInformers(kube.kubeConfig),
    writer: new KubeServiceExternalIPWriter(kube.kubeConfig),
    logger,
    writesPoolUsage: false,
    retryMs: 100,
  });
  services.followClaims(egress);
  egress.followClaims(services);
  await egress.start();
  await services.start();
  return {
    services,
    stop: async () => {
      await services.stop();
      await egress.stop();
    },
  };
}

const getPool = async () =>
  (await api.getClusterCustomObject({ ...POOL, name: 'svc-pool' })) as ExternalIPPool;
const getService = (name: string) => core.readNamespacedService({ name, namespace: NS });
const ingressOf = async (name: string) => (await getService(name)).status?.loadBalancer?.ingress ?? [];
const ipOf = async (name: string) => (await ingressOf(name))[0]?.ip;
const used = async () => (await getPool()).status?.usage?.used;

async function createService(
  name: string,
  opts: { pool?: string; type?: string; loadBalancerIP?: string } = {},
): Promise<void> {
  const body: V1Service = {
    metadata: { name, ...(opts.pool ? { annotations: { [ANNOTATION]: opts.pool } } : {}) },
    spec: {
      type: opts.type ?? 'LoadBalancer',
      ports: [{ port: 80, protocol: 'TCP' }],
      ...(opts.loadBalancerIP ? { loadBalancerIP: opts.loadBalancerIP } : {}),
    },
  };
  await core.createNamespacedService({ namespace: NS, body });
}

const deleteService = (name: string) => core.deleteNamespacedService({ name, namespace: NS });

beforeAll(async () => {
  kube = await startKube();
  await installCrds(kube, [crdDir]);
  api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
  await api.createClusterCustomObject({
    ...POOL,
    body: {
      apiVersion: POOL.apiVersion,
      kind: 'ExternalIPPool',
      metadata: { name: 'svc-pool' },
      spec: { ipRanges: [{ start: '10.20.0.2', end: '10.20.0.5' }], nodeSelector: {} },
    },
  });
  await core.createNamespace({ body: { metadata: { name: NS } } });
}, 120_000);

afterAll(async () => {
  await kube?.stop();
});

describe('ServiceExternalIP controller', () => {
  it('allocates, honours loadBalancerIP, survives a restart, releases on annotation removal and delete', async () => {
    const first = await startControllers();
    try {
      await createService('plain', { pool: 'svc-pool' });
      await createService('pinned', { pool: 'svc-pool', loadBalancerIP: '10.20.0.5' });
      await createService('outside', { pool: 'svc-pool', loadBalancerIP: '10.99.0.1' });
      await createService('unannotated');
      await createService('cluster-ip', { pool: 'svc-pool', type: 'ClusterIP' });
      await until('plain and pinned have IPs', async () => (await ipOf('plain')) !== undefined);
      await until('pinned has its IP', async () => (await ipOf('pinned')) === '10.20.0.5');
      expect((await ingressOf('plain')).map((i) => i.ip)).toEqual(['10.20.0.2']);
      await until('usage 2', async () => (await used()) === 2);
      expect((await getPool()).status?.usage).toEqual({ total: 4, used: 2 });
      await first.services.idle();
      expect(await ingressOf('outside')).toEqual([]);
      expect(await ingressOf('unannotated')).toEqual([]);
      expect(await ingressOf('cluster-ip')).toEqual([]);
    } finally {
      await first.stop();
    }

    // A new controller reads the allocations back: the same IPs, the next free one for a new Service.
    const second = await startControllers();
    try {
      await createService('later', { pool: 'svc-pool' });
      await until('later has an IP', async () => (await ipOf('later')) !== undefined);
      expect(await ipOf('later')).toBe('10.20.0.3');
      expect(await ipOf('plain')).toBe('10.20.0.2');
      expect(await ipOf('pinned')).toBe('10.20.0.5');
      await until('usage 3', async () => (await used()) === 3);

      // The annotation goes: the ingress is emptied and the IP is free again.
      const svc = await getService('plain');
      delete svc.metadata?.annotations?.[ANNOTATION];
      await core.replaceNamespacedService({ name: 'plain', namespace: NS, body: svc });
      await until('plain released', async () => (await ingressOf('plain')).length === 0);
      await until('usage 2 after release', async () => (await used()) === 2);
      await createService('reuse', { pool: 'svc-pool' });
      await until('reuse gets the freed IP', async () => (await ipOf('reuse')) === '10.20.0.2');

      // Deleting a Service frees its IP.
      await deleteService('later');
      await until('usage 2 after delete', async () => (await used()) === 2);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('never gives an Egress and a Service the same pool IP', async () => {
    const ctl = await startControllers();
    try {
      await api.createClusterCustomObject({
        ...EGRESS,
        body: {
          apiVersion: EGRESS.apiVersion,
          kind: 'Egress',
          metadata: { name: 'eg' },
          spec: { appliedTo: { podSelector: {} }, externalIPPool: 'svc-pool' },
        },
      });
      await createService('next', { pool: 'svc-pool' });
      const egressIp = async () =>
        ((await api.getClusterCustomObject({ ...EGRESS, name: 'eg' })) as Egress).spec.egressIP;
      await until(
        'both allocated',
        async () => (await egressIp()) !== undefined && (await ipOf('next')) !== undefined,
      );
      const serviceIps = (await core.listNamespacedService({ namespace: NS })).items.flatMap(
        (s) => s.status?.loadBalancer?.ingress?.map((i) => i.ip ?? '') ?? [],
      );
      const taken = [await egressIp(), ...serviceIps];
      expect(new Set(taken).size).toBe(taken.length);
      await until('usage counts both', async () => (await used()) === taken.length);
    } finally {
      await ctl.stop();
    }
  }, 120_000);
});
