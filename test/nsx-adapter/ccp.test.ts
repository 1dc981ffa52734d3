import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import {
  CcpAdapter,
  KubeManagedCrdStore,
  NsxClient,
  NsxRestChannel,
  PolicyApiCcpChannel,
} from '@antrea-ts/nsx-adapter';
import { generateClientCertificate } from '@antrea-ts/nsx-sim';
import { LoopbackSim } from '@antrea-ts/nsx-sim/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CCP, CLUSTER, CLUSTER_PATH, eventually, G, getJson, installCrds, SP } from './support.js';

// The CCP adapter against a real kube-apiserver and the NSX simulator listening on loopback.

const MANAGED = 'ccp-adapter.antrea.tanzu.vmware.com/managedBy=ccp-adapter';
let kube: KubeCluster;
let sim: LoopbackSim;
let dir: string;
const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

function newAdapter(source: 'feed' | 'api' = 'feed'): { adapter: CcpAdapter; client: NsxClient } {
  const client = new NsxClient({ baseUrl: sim.url, timeoutMs: 5000 });
  const rpc = new NsxRestChannel(client, CLUSTER);
  const adapter = new CcpAdapter({
    channel: source === 'feed' ? rpc : new PolicyApiCcpChannel(client, CLUSTER, rpc),
    store: new KubeManagedCrdStore(kube.kubeConfig, logger),
    logger,
    // The feed long-polls for this long; the Policy API source polls at this period.
    longPollMs: source === 'feed' ? 2000 : 200,
    backoffInitialMs: 100,
    backoffMaxMs: 500,
    debounceMs: 20,
  });
  return { adapter, client };
}

async function createWebPolicy(id: string, action = 'ALLOW'): Promise<void> {
  await sim.must('PATCH', `${G}/${id}-web`, {
    group_type: ['ANTREA'],
    expression: [
      {
        resource_type: 'Condition',
        member_type: 'Pod',
        key: 'Tag',
        operator: 'EQUALS',
        value: 'dis:k8s:app|web',
      },
    ],
  });
  await sim.must('PATCH', `${SP}/${id}`, {
    display_name: `${id} display`,
    category: 'Application',
    sequence_number: 10,
    rules: [
      {
        id: 'r1',
        sequence_number: 1,
        action,
        direction: 'IN',
        source_groups: [`/infra/domains/default/groups/${id}-web`],
        services: ['/infra/services/HTTP'],
      },
    ],
  });
  await sim.must('PATCH', `${SP}/${id}/container-cluster-span/${CLUSTER}`, {
    container_cluster_path: CLUSTER_PATH,
  });
}

async function deletePolicy(id: string): Promise<void> {
  await sim.must('DELETE', `${SP}/${id}`);
  await sim.must('DELETE', `${G}/${id}-web`);
}

async function uid(id: string): Promise<string> {
  return ((await sim.must('GET', `${SP}/${id}`)) as { unique_id: string }).unique_id;
}

async function acnps(): Promise<
  {
    metadata: { name: string; resourceVersion: string; annotations: Record<string, string> };
    spec: { priority: number; ingress?: { action: string }[] };
  }[]
> {
  return (await getJson(kube, ['get', 'acnp', '-l', MANAGED])).items;
}

beforeAll(async () => {
  kube = await startKube();
  await installCrds(kube);
  dir = await mkdtemp(join(tmpdir(), 'nsx-adapter-ccp-'));
  sim = new LoopbackSim(join(dir, 'sim-state.json'));
  await sim.start();
  const { cert } = await generateClientCertificate(dir, CLUSTER);
  await sim.must('PUT', `${CCP}/${CLUSTER}`, { certificate: cert });
});

afterAll(async () => {
  await sim?.stop();
  await kube?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('CCP adapter with kube-apiserver and the NSX simulator', () => {
  it.each(['feed', 'api'] as const)(
    '(%s source) realizes an NSX policy as Tier/ClusterGroup/ACNP, follows rule changes and deletions, reports realization',
    async (source) => {
      const { adapter, client } = newAdapter(source);
      await adapter.start();
      try {
        await createWebPolicy('web-in');
        const name = await uid('web-in');
        const acnp = await eventually(
          async () => (await acnps()).find((p) => p.metadata.name === name),
          'ACNP',
        );
        expect(acnp.metadata.annotations['ccp-adapter.antrea.tanzu.vmware.com/display-name']).toBe(
          'web-in display',
        );
        expect(acnp.spec).toMatchObject({
          tier: 'nsx-category-application',
          priority: 1.01,
          ingress: [
            {
              action: 'Allow',
              enableLogging: false,
              appliedTo: [{ podSelector: {} }],
              ports: [{ protocol: 'TCP', port: 80 }],
              from: [{ group: expect.any(String) }],
            },
          ],
        });
        const tiers = await getJson(kube, ['get', 'tiers', '-l', MANAGED]);
        expect(
          tiers.items
            .map(
              (t: { metadata: { name: string }; spec: { priority: number } }) =>
                `${t.metadata.name}=${t.spec.priority}`,
            )
            .sort(),
        ).toEqual([
          'nsx-category-application=4',
          'nsx-category-emergency=1',
          'nsx-category-environment=3',
          'nsx-category-ethernet=0',
          'nsx-category-infrastructure=2',
        ]);
        const groups = await getJson(kube, ['get', 'clustergroups', '-l', MANAGED]);
        const gname = (acnp.spec as unknown as { ingress: { from: { group: string }[] }[] }).ingress[0]
          ?.from[0]?.group;
        expect(groups.items.map((g: { metadata: { name: string } }) => g.metadata.name).sort()).toEqual([
          gname,
          `${gname}-0`,
        ]);

        // Realization: IN_PROGRESS until the Antrea controller (here: kubectl) marks the status Realized.
        const status = async () =>
          (await sim.must(
            'GET',
            `/policy/api/v1/infra/realized-state/status?intent_path=/infra/domains/default/security-policies/web-in`,
          )) as {
            consolidated_status: { consolidated_status: string };
          };
        await eventually(
          async () => (await status()).consolidated_status.consolidated_status === 'IN_PROGRESS',
          'in progress',
        );
        await kube.kubectl([
          'patch',
          'acnp',
          name,
          '--subresource=status',
          '--type=merge',
          '-p',
          JSON.stringify({
            status: {
              phase: 'Realized',
              observedGeneration: 1,
              currentNodesRealized: 2,
              desiredNodesRealized: 2,
            },
          }),
        ]);
        await eventually(
          async () => (await status()).consolidated_status.consolidated_status === 'SUCCESS',
          'realized',
        );

        // Rule change.
        await sim.must('PATCH', `${SP}/web-in/rules/r1`, { action: 'DROP' });
        await eventually(
          async () =>
            (await acnps()).find((p) => p.metadata.name === name)?.spec.ingress?.[0]?.action === 'Drop',
          'rule change',
        );

        // Deletion in NSX.
        await deletePolicy('web-in');
        await eventually(async () => !(await acnps()).some((p) => p.metadata.name === name), 'ACNP deletion');
        await eventually(
          async () => (await getJson(kube, ['get', 'clustergroups', '-l', MANAGED])).items.length === 0,
          'group deletion',
        );
      } finally {
        await adapter.stop();
        client.close();
      }
    },
  );

  it('reports policies using unsupported features as realization errors and creates nothing for them', async () => {
    const { adapter, client } = newAdapter();
    await adapter.start();
    try {
      // Accepted by NSX for Antrea clusters, not expressible as Antrea policy.
      await sim.must('PATCH', `${G}/fuzzy`, {
        group_type: ['ANTREA'],
        expression: [
          {
            resource_type: 'Condition',
            member_type: 'Pod',
            key: 'Tag',
            operator: 'STARTSWITH',
            value: 'dis:k8s:app|we',
          },
        ],
      });
      await sim.must('PATCH', `${SP}/unsupported`, {
        category: 'Environment',
        rules: [
          {
            id: 'fuzzy',
            action: 'ALLOW',
            direction: 'IN',
            source_groups: ['/infra/domains/default/groups/fuzzy'],
          },
        ],
      });
      // Separately: the simulator checks the category of the stored policy, not of one created in
      // the same call.
      await sim.must('PATCH', `${SP}/unsupported/rules/jump`, {
        action: 'JUMP_TO_APPLICATION',
        direction: 'IN',
        sequence_number: 5,
      });
      await sim.must('PATCH', `${SP}/unsupported/container-cluster-span/${CLUSTER}`, {
        container_cluster_path: CLUSTER_PATH,
      });
      const path = '/infra/domains/default/security-policies/unsupported';
      const status = await eventually(async () => {
        const s = (await sim.must(
          'GET',
          `/policy/api/v1/infra/realized-state/status?intent_path=${path}`,
        )) as {
          consolidated_status: { consolidated_status: string };
          consolidated_status_per_enforcement_point: {
            consolidated_status_per_container_cluster: { errors: { error_message: string }[] }[];
          }[];
        };
        return s.consolidated_status.consolidated_status === 'ERROR' ? s : undefined;
      }, 'realization error');
      const errors =
        status.consolidated_status_per_enforcement_point[0]?.consolidated_status_per_container_cluster[0]
          ?.errors ?? [];
      expect(errors.map((e) => e.error_message)).toEqual([
        expect.stringMatching(/operator STARTSWITH on tags is not supported/),
        expect.stringMatching(/action JUMP_TO_APPLICATION is not supported/),
      ]);
      expect(await acnps()).toEqual([]);
      expect((await getJson(kube, ['get', 'clustergroups', '-l', MANAGED])).items).toEqual([]);
    } finally {
      await adapter.stop();
      client.close();
      await sim.call('DELETE', `${SP}/unsupported`);
      await sim.call('DELETE', `${G}/fuzzy`);
    }
  });

  it('never touches an unmanaged ACNP; reverts kubectl edits of managed ones', async () => {
    const { adapter, client } = newAdapter();
    const unmanaged = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: {
        name: 'hand-made',
        annotations: { 'ccp-adapter.antrea.tanzu.vmware.com/display-name': 'looks managed' },
      },
      spec: {
        tier: 'nsx-category-application',
        priority: 5,
        appliedTo: [{ podSelector: {} }],
        ingress: [{ action: 'Drop' }],
      },
    };
    await kube.kubectl(['apply', '-f', '-'], { input: JSON.stringify(unmanaged) });
    const before = await getJson(kube, ['get', 'acnp', 'hand-made']);
    await adapter.start();
    try {
      await createWebPolicy('edit-me');
      const name = await uid('edit-me');
      const created = await eventually(
        async () => (await acnps()).find((p) => p.metadata.name === name),
        'ACNP',
      );
      await kube.kubectl([
        'patch',
        'acnp',
        name,
        '--type=merge',
        '-p',
        JSON.stringify({ spec: { priority: 77, ingress: [{ action: 'Allow', name: 'x' }] } }),
      ]);
      await eventually(async () => {
        const now = (await acnps()).find((p) => p.metadata.name === name);
        return now &&
          now.metadata.resourceVersion !== created.metadata.resourceVersion &&
          now.spec.priority === 1.01 &&
          now.spec.ingress?.[0]?.action === 'Allow'
          ? now
          : undefined;
      }, 'revert');
      const reverted = (await acnps()).find((p) => p.metadata.name === name);
      expect(reverted?.spec).toEqual(created.spec);
      // A managed ACNP deleted with kubectl comes back.
      await kube.kubectl(['delete', 'acnp', name]);
      await eventually(async () => (await acnps()).some((p) => p.metadata.name === name), 'recreate');
      // The unmanaged one was never written.
      const after = await getJson(kube, ['get', 'acnp', 'hand-made']);
      expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      expect(after.spec).toEqual(unmanaged.spec);
      await deletePolicy('edit-me');
      await eventually(async () => (await acnps()).length === 0, 'cleanup');
      expect((await getJson(kube, ['get', 'acnp', 'hand-made'])).metadata.resourceVersion).toBe(
        before.metadata.resourceVersion,
      );
    } finally {
      await adapter.stop();
      client.close();
      await kube.kubectl(['delete', 'acnp', 'hand-made', '--ignore-not-found']);
    }
  });

  it('a restarted adapter removes CRDs of policies deleted in NSX while it was down', async () => {
    const first = newAdapter();
    await first.adapter.start();
    await createWebPolicy('stale');
    const name = await uid('stale');
    await eventually(async () => (await acnps()).some((p) => p.metadata.name === name), 'ACNP');
    await first.adapter.stop();
    first.client.close();

    await deletePolicy('stale');
    // Nobody is running: the ACNP is still there.
    expect((await acnps()).some((p) => p.metadata.name === name)).toBe(true);
    const second = newAdapter();
    await second.adapter.start();
    try {
      await eventually(
        async () => !(await acnps()).some((p) => p.metadata.name === name),
        'stale ACNP removed',
      );
      await eventually(
        async () => (await getJson(kube, ['get', 'clustergroups', '-l', MANAGED])).items.length === 0,
        'stale groups removed',
      );
    } finally {
      await second.adapter.stop();
      second.client.close();
    }
  });

  it('NSX stopped: CRDs stay as they are and health turns DEGRADED; NSX back: UP and in sync again', async () => {
    const { adapter, client } = newAdapter();
    await adapter.start();
    try {
      await createWebPolicy('outage');
      const name = await uid('outage');
      await eventually(async () => (await acnps()).some((p) => p.metadata.name === name), 'ACNP');
      await eventually(async () => adapter.health().status === 'UP', 'UP');
      const before = await acnps();

      await sim.stop();
      await eventually(async () => adapter.health().status === 'DEGRADED', 'DEGRADED');
      // The in-flight long poll may first end with a 503 from the closing server; then connects fail.
      await eventually(
        async () =>
          adapter.health().conditions.find((c) => c.type === 'NSXConnectionUp')?.reason === 'NSX_UNREACHABLE',
        'connection refused',
      );
      await new Promise((r) => setTimeout(r, 1500));
      expect(await acnps()).toEqual(before);

      await sim.start(); // same port, same state file
      await eventually(async () => adapter.health().status === 'UP', 'UP again');
      await deletePolicy('outage');
      await eventually(async () => (await acnps()).length === 0, 'cleanup');
    } finally {
      await adapter.stop();
      client.close();
    }
  });
});
