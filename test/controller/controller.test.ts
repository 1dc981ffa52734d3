import { fileURLToPath } from 'node:url';
import { formatIP } from '@antrea-ts/apis';
import {
  KubeStatusWriter,
  KubeTierClient,
  makePolicyInformers,
  NetworkPolicyController,
  normalizedUID,
} from '@antrea-ts/controller';
import { installCrds, type KubeCluster, startKube, waitFor } from '@antrea-ts/harness';
import { CoreV1Api, CustomObjectsApi, NetworkingV1Api, type V1Pod } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The policy computation fed by real informers from a real kube-apiserver (with Antrea's CRDs):
// objects created through the API show up as internal NetworkPolicies, AppliedToGroups and
// AddressGroups, and follow updates and deletions.

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));

let kube: KubeCluster;
let controller: NetworkPolicyController;
let core: CoreV1Api;
let net: NetworkingV1Api;
let custom: CustomObjectsApi;
const abort = new AbortController();

async function createPod(
  ns: string,
  name: string,
  labels: Record<string, string>,
  node: string,
  ip: string,
): Promise<void> {
  const pod: V1Pod = {
    metadata: { name, namespace: ns, labels },
    spec: {
      nodeName: node,
      containers: [{ name: 'c', image: 'none', ports: [{ name: 'http', containerPort: 8080 }] }],
    },
  };
  await core.createNamespacedPod({ namespace: ns, body: pod });
  // No kubelet here: write the status a kubelet would.
  const current = await core.readNamespacedPodStatus({ name, namespace: ns });
  current.status = { ...current.status, phase: 'Running', podIP: ip, podIPs: [{ ip }] };
  await core.replaceNamespacedPodStatus({ name, namespace: ns, body: current });
}

function addressGroupMembers(name: string): string[] {
  const ag = controller.addressGroups.get(name)?.object;
  return (ag?.members ?? [])
    .map((m) => `${m.pod?.namespace}/${m.pod?.name}@${m.ips?.map(formatIP).join(',')}`)
    .sort();
}

beforeAll(async () => {
  kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
  net = kube.kubeConfig.makeApiClient(NetworkingV1Api);
  custom = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  for (const ns of ['x', 'y'])
    await core.createNamespace({ body: { metadata: { name: ns, labels: { team: ns } } } });
  await createPod('x', 'a', { app: 'a' }, 'n1', '10.10.0.1');
  await createPod('x', 'b', { app: 'b' }, 'n2', '10.10.0.2');
  await createPod('y', 'b', { app: 'b' }, 'n3', '10.10.0.3');
  controller = new NetworkPolicyController({
    informers: makePolicyInformers(kube.kubeConfig),
    logger,
    statusWriter: new KubeStatusWriter(kube.kubeConfig),
    tierClient: new KubeTierClient(kube.kubeConfig),
  });
  await controller.start(abort.signal);
}, 180_000);

afterAll(async () => {
  abort.abort();
  await controller?.stop();
  await kube?.stop();
});

describe('NetworkPolicyController against kube-apiserver', () => {
  it('creates the static Tiers', async () => {
    await controller.tiersInitialized;
    const list = (await custom.listClusterCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      plural: 'tiers',
    })) as {
      items: { metadata: { name: string }; spec: { priority: number } }[];
    };
    expect(Object.fromEntries(list.items.map((t) => [t.metadata.name, t.spec.priority]))).toEqual({
      application: 250,
      baseline: 253,
      emergency: 50,
      networkops: 150,
      platform: 200,
      securityops: 100,
    });
  });

  it('computes a K8s NetworkPolicy created through the API and follows a Pod relabel', async () => {
    const np = await net.createNamespacedNetworkPolicy({
      namespace: 'x',
      body: {
        metadata: { name: 'a-from-b' },
        spec: {
          podSelector: { matchLabels: { app: 'a' } },
          policyTypes: ['Ingress'],
          ingress: [{ _from: [{ podSelector: { matchLabels: { app: 'b' } }, namespaceSelector: {} }] }],
        },
      },
    });
    const uid = np.metadata!.uid!;
    const internal = await waitFor(
      'internal NetworkPolicy',
      async () => controller.networkPolicies.get(uid)?.object,
    );
    expect(internal.sourceRef).toEqual({ type: 'K8sNetworkPolicy', namespace: 'x', name: 'a-from-b', uid });
    expect([...internal.span]).toEqual(['n1']);
    const ag = normalizedUID('namespaceSelector= And podSelector=app=b');
    expect(internal.rules[0]!.from!.addressGroups).toEqual([ag]);
    expect(addressGroupMembers(ag)).toEqual(['x/b@10.10.0.2', 'y/b@10.10.0.3']);
    const atg = controller.appliedToGroups.get(internal.appliedToGroups[0]!)!.object;
    expect(atg.membersByNode.get('n1')).toEqual([
      { pod: { name: 'a', namespace: 'x' }, ports: [{ port: 8080, name: 'http', protocol: 'TCP' }] },
    ]);

    const pod = await core.readNamespacedPod({ name: 'b', namespace: 'y' });
    pod.metadata!.labels = { app: 'other' };
    await core.replaceNamespacedPod({ name: 'b', namespace: 'y', body: pod });
    await waitFor(
      'relabelled Pod to leave the AddressGroup',
      async () => addressGroupMembers(ag).length === 1,
    );
    expect(addressGroupMembers(ag)).toEqual(['x/b@10.10.0.2']);

    await net.deleteNamespacedNetworkPolicy({ name: 'a-from-b', namespace: 'x' });
    await waitFor(
      'internal NetworkPolicy to go',
      async () => controller.networkPolicies.get(uid) === undefined,
    );
    expect(controller.addressGroups.get(ag)).toBeUndefined();
  });

  it('computes an Antrea ClusterNetworkPolicy in its Tier', async () => {
    const acnp = (await custom.createClusterCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      plural: 'clusternetworkpolicies',
      body: {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'ClusterNetworkPolicy',
        metadata: { name: 'drop-b' },
        spec: {
          tier: 'securityops',
          priority: 5,
          appliedTo: [{ namespaceSelector: { matchLabels: { team: 'x' } } }],
          ingress: [
            { action: 'Drop', name: 'drop-b', from: [{ podSelector: { matchLabels: { app: 'b' } } }] },
          ],
        },
      },
    })) as { metadata: { uid: string } };
    const internal = await waitFor(
      'internal ACNP',
      async () => controller.networkPolicies.get(acnp.metadata.uid)?.object,
    );
    expect(internal.tierPriority).toBe(100);
    expect(internal.priority).toBe(5);
    expect(internal.rules[0]).toMatchObject({ action: 'Drop', name: 'drop-b', direction: 'In' });
    expect([...internal.span].sort()).toEqual(['n1', 'n2']);

    // Agents report realization; the status subresource follows.
    const read = async () =>
      (await custom.getClusterCustomObjectStatus({
        group: 'crd.antrea.io',
        version: 'v1beta1',
        plural: 'clusternetworkpolicies',
        name: 'drop-b',
      })) as { status?: { phase?: string; currentNodesRealized?: number; desiredNodesRealized?: number } };
    await waitFor('Realizing status', async () => (await read()).status?.phase === 'Realizing');
    controller.reportStatus({
      metadata: { name: acnp.metadata.uid },
      nodes: [{ nodeName: 'n1', generation: internal.generation, realizationFailure: false }],
    });
    controller.reportStatus({
      metadata: { name: acnp.metadata.uid },
      nodes: [{ nodeName: 'n2', generation: internal.generation, realizationFailure: false }],
    });
    await waitFor('Realized status', async () => (await read()).status?.phase === 'Realized');
    expect((await read()).status).toMatchObject({ currentNodesRealized: 2, desiredNodesRealized: 2 });
  });
});

describe('ExternalEntities through the API', () => {
  const ee = { group: 'crd.antrea.io', version: 'v1alpha2', plural: 'externalentities' };
  type EE = { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  const createEE = (namespace: string, name: string, labels: Record<string, string>, spec: EE['spec']) =>
    custom.createNamespacedCustomObject({
      ...ee,
      namespace,
      body: {
        apiVersion: 'crd.antrea.io/v1alpha2',
        kind: 'ExternalEntity',
        metadata: { name, labels },
        spec,
      },
    });
  const updateEE = async (namespace: string, name: string, change: (o: EE) => void) => {
    const o = (await custom.getNamespacedCustomObject({ ...ee, namespace, name })) as EE;
    change(o);
    await custom.replaceNamespacedCustomObject({ ...ee, namespace, name, body: o });
  };
  const eeMembers = (name: string): string[] =>
    (controller.addressGroups.get(name)?.object.members ?? [])
      .map(
        (m) => `${m.externalEntity?.namespace}/${m.externalEntity?.name}@${m.ips?.map(formatIP).join(',')}`,
      )
      .sort();

  it('selects ExternalEntities by externalEntitySelector and follows endpoint, label and delete changes', async () => {
    await createEE(
      'x',
      'vm-db',
      { role: 'db' },
      {
        endpoints: [{ ip: '10.20.0.1', name: 'eth0' }],
        ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
        externalNode: 'vm-1',
      },
    );
    await createEE('y', 'vm-db2', { role: 'db' }, { endpoints: [{ ip: '10.20.0.2' }] });
    // As in Antrea, only Antrea NetworkPolicies (and Groups/ClusterGroups) take an
    // externalEntitySelector: the ClusterNetworkPolicy schema prunes it.
    const annp = (await custom.createNamespacedCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      namespace: 'x',
      plural: 'networkpolicies',
      body: {
        apiVersion: 'crd.antrea.io/v1beta1',
        kind: 'NetworkPolicy',
        metadata: { name: 'db-vms' },
        spec: {
          priority: 6,
          appliedTo: [{ externalEntitySelector: { matchLabels: { role: 'db' } } }],
          ingress: [
            {
              action: 'Allow',
              name: 'from-db',
              from: [{ namespaceSelector: {}, externalEntitySelector: { matchLabels: { role: 'db' } } }],
            },
          ],
        },
      },
    })) as { metadata: { uid: string } };
    const atg = normalizedUID('eeSelector=role=db And namespace=x');
    const ag = normalizedUID('eeSelector=role=db And namespaceSelector=');
    const internal = await waitFor('internal ANNP over ExternalEntities', async () => {
      const np = controller.networkPolicies.get(annp.metadata.uid)?.object;
      return np && np.span.size > 0 && eeMembers(ag).length === 2 ? np : undefined;
    });
    expect([...internal.span]).toEqual(['vm-1']);
    expect(internal.rules[0]!.from!.addressGroups).toEqual([ag]);
    expect(eeMembers(ag)).toEqual(['x/vm-db@10.20.0.1', 'y/vm-db2@10.20.0.2']);
    expect([...controller.appliedToGroups.get(atg)!.object.membersByNode]).toEqual([
      [
        'vm-1',
        [
          {
            externalEntity: { name: 'vm-db', namespace: 'x' },
            ports: [{ port: 5432, name: 'pg', protocol: 'TCP' }],
          },
        ],
      ],
    ]);

    await updateEE('y', 'vm-db2', (o) => {
      o.spec['endpoints'] = [{ ip: '10.20.0.3' }];
    });
    await waitFor('endpoint change', async () => eeMembers(ag).includes('y/vm-db2@10.20.0.3'));
    expect(eeMembers(ag)).toEqual(['x/vm-db@10.20.0.1', 'y/vm-db2@10.20.0.3']);

    await updateEE('x', 'vm-db', (o) => {
      o.metadata['labels'] = { role: 'web' };
    });
    await waitFor('relabelled entity to leave', async () => eeMembers(ag).length === 1);
    await waitFor(
      'policy span to empty',
      async () => controller.networkPolicies.get(annp.metadata.uid)?.object.span.size === 0,
    );
    expect(controller.appliedToGroups.get(atg)!.object.membersByNode.size).toBe(0);

    await custom.deleteNamespacedCustomObject({ ...ee, namespace: 'y', name: 'vm-db2' });
    await waitFor('deleted entity to leave', async () => eeMembers(ag).length === 0);

    await custom.deleteNamespacedCustomObject({
      group: 'crd.antrea.io',
      version: 'v1beta1',
      namespace: 'x',
      plural: 'networkpolicies',
      name: 'db-vms',
    });
    await waitFor('groups to be collected', async () => controller.addressGroups.get(ag) === undefined);
    expect(controller.appliedToGroups.get(atg)).toBeUndefined();
  });
});
