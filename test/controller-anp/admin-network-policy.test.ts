import { fileURLToPath } from 'node:url';
import { formatIP, POLICY_API_KINDS } from '@antrea-ts/apis';
import {
  ADMIN_NETWORK_POLICY_TIER_PRIORITY,
  BASELINE_ADMIN_NETWORK_POLICY_TIER_PRIORITY,
  makePolicyInformers,
  NetworkPolicyController,
} from '@antrea-ts/controller';
import { installCrds, type KubeCluster, startKube, waitFor } from '@antrea-ts/harness';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// AdminNetworkPolicy and BaselineAdminNetworkPolicy through a real kube-apiserver with the CRDs of
// build/crds: the controller with featureGates.AdminNetworkPolicy computes them into internal
// NetworkPolicies and follows updates and deletes; one without the gate never sees them.

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const ANP = POLICY_API_KINDS.AdminNetworkPolicy;
const BANP = POLICY_API_KINDS.BaselineAdminNetworkPolicy;

let kube: KubeCluster;
let custom: CustomObjectsApi;
let gated: NetworkPolicyController;
let ungated: NetworkPolicyController;
let ungatedInformers: ReturnType<typeof makePolicyInformers>;
const abort = new AbortController();

const ref = (k: typeof ANP | typeof BANP) => ({ group: k.group, version: k.version, plural: k.plural });
const nsSel = (n: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': n } });

function internal(c: NetworkPolicyController, type: string) {
  return c.networkPolicies
    .list()
    .items.map((i) => i.object)
    .filter((p) => p.sourceRef.type === type);
}

beforeAll(async () => {
  kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  for (const ns of ['x', 'y']) await core.createNamespace({ body: { metadata: { name: ns } } });
  await core.createNamespacedPod({
    namespace: 'y',
    body: { metadata: { name: 'a' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'none' }] } },
  });
  const pod = await core.readNamespacedPodStatus({ name: 'a', namespace: 'y' });
  pod.status = { phase: 'Running', podIP: '10.10.0.7', podIPs: [{ ip: '10.10.0.7' }] };
  await core.replaceNamespacedPodStatus({ name: 'a', namespace: 'y', body: pod });
  gated = new NetworkPolicyController({
    informers: makePolicyInformers(kube.kubeConfig, { adminNetworkPolicy: true }),
    logger,
  });
  ungatedInformers = makePolicyInformers(kube.kubeConfig);
  ungated = new NetworkPolicyController({ informers: ungatedInformers, logger });
  await Promise.all([gated.start(abort.signal), ungated.start(abort.signal)]);
}, 180_000);

afterAll(async () => {
  abort.abort();
  await gated?.stop();
  await ungated?.stop();
  await kube?.stop();
});

describe('AdminNetworkPolicy against kube-apiserver', () => {
  it('computes an ANP, follows a priority change and its delete; only with the gate', async () => {
    await custom.createClusterCustomObject({
      ...ref(ANP),
      body: {
        apiVersion: `${ANP.group}/${ANP.version}`,
        kind: ANP.kind,
        metadata: { name: 'deny-y' },
        spec: {
          priority: 30,
          subject: { namespaces: nsSel('x') },
          ingress: [{ name: 'deny-y', action: 'Deny', from: [{ namespaces: nsSel('y') }] }],
        },
      },
    });
    const np = await waitFor('ANP computed', async () => internal(gated, 'AdminNetworkPolicy')[0]);
    expect(np.sourceRef.name).toBe('deny-y');
    expect([np.tierPriority, np.priority]).toEqual([ADMIN_NETWORK_POLICY_TIER_PRIORITY, 30]);
    const ag = np.rules[0]!.from!.addressGroups![0]!;
    const members = gated.addressGroups.get(ag)!.object.members;
    expect(members.map((m) => `${m.pod?.namespace}/${m.pod?.name}@${m.ips?.map(formatIP)}`)).toEqual([
      'y/a@10.10.0.7',
    ]);

    // Without the gate no policy.networking.k8s.io informer exists, so nothing is watched or computed.
    expect(Object.keys(ungatedInformers).filter((k) => k.includes('dminNetworkPolic'))).toEqual([]);
    expect(internal(ungated, 'AdminNetworkPolicy')).toEqual([]);

    const current = (await custom.getClusterCustomObject({ ...ref(ANP), name: 'deny-y' })) as {
      spec: { priority: number };
    };
    current.spec.priority = 3;
    await custom.replaceClusterCustomObject({ ...ref(ANP), name: 'deny-y', body: current });
    await waitFor(
      'priority followed',
      async () => internal(gated, 'AdminNetworkPolicy')[0]?.priority === 3 || undefined,
    );

    await custom.deleteClusterCustomObject({ ...ref(ANP), name: 'deny-y' });
    await waitFor('ANP gone', async () => internal(gated, 'AdminNetworkPolicy').length === 0 || undefined);
    expect(gated.addressGroups.get(ag)).toBeUndefined();
    expect(internal(ungated, 'AdminNetworkPolicy')).toEqual([]);
  });

  it('computes the BANP after the baseline tier; kube-apiserver refuses another name', async () => {
    const body = (name: string) => ({
      apiVersion: `${BANP.group}/${BANP.version}`,
      kind: BANP.kind,
      metadata: { name },
      spec: {
        subject: { pods: { namespaceSelector: nsSel('x'), podSelector: {} } },
        egress: [{ name: 'deny-out', action: 'Deny', to: [{ networks: ['0.0.0.0/0'] }] }],
      },
    });
    const refused = (await custom.createClusterCustomObject({ ...ref(BANP), body: body('second') }).then(
      () => undefined,
      (e: unknown) => e,
    )) as { code?: number; body?: unknown } | undefined;
    expect(refused?.code).toBe(422);
    expect(String(refused?.body)).toContain(
      'Only one baseline admin network policy with metadata.name=\\"default\\"',
    );
    await custom.createClusterCustomObject({ ...ref(BANP), body: body('default') });
    const np = await waitFor('BANP computed', async () => internal(gated, 'BaselineAdminNetworkPolicy')[0]);
    expect([np.tierPriority, np.priority]).toEqual([BASELINE_ADMIN_NETWORK_POLICY_TIER_PRIORITY, 1]);
    expect(np.rules.map((r) => [r.direction, r.action, r.name])).toEqual([['Out', 'Drop', 'deny-out']]);
    expect(internal(ungated, 'BaselineAdminNetworkPolicy')).toEqual([]);
    await custom.deleteClusterCustomObject({ ...ref(BANP), name: 'default' });
  });
});
