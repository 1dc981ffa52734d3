import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import {
  KubeCrdClient,
  KubeInventorySource,
  MpAdapter,
  NsxClient,
  NsxRestChannel,
  type PolicyTrafficStats,
} from '@antrea-ts/nsx-adapter';
import { generateClientCertificate } from '@antrea-ts/nsx-sim';
import { LoopbackSim } from '@antrea-ts/nsx-sim/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CCP, CLUSTER, CLUSTER_PATH, eventually, getJson, installCrds, SP } from './support.js';

// The MP adapter against a real kube-apiserver (+ controller-manager, for Namespace deletion) and the
// NSX simulator on loopback. Pods have no CNI and stay Pending, which is all inventory needs.

let kube: KubeCluster;
let sim: LoopbackSim;
let dir: string;
let client: NsxClient;
let adapter: MpAdapter;
let nodeId: string;
const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
let stats: PolicyTrafficStats[] = [];
const managedAcnps: { metadata: { name: string; annotations: Record<string, string> } }[] = [];

const INVENTORY: [string, string, string[]][] = [
  ['ContainerProject', 'container-projects', ['get', 'namespaces']],
  ['ContainerApplicationInstance', 'container-application-instances', ['get', 'pods', '-A']],
  ['ContainerApplication', 'container-applications', ['get', 'services', '-A']],
  ['ContainerClusterNode', 'container-cluster-nodes', ['get', 'nodes']],
  ['ContainerNetworkPolicy', 'container-network-policies', ['get', 'networkpolicies', '-A']],
];

/** Per inventory type: [NSX external ids, Kubernetes UIDs], both sorted. */
async function inventoryPairs(): Promise<[string, string[], string[]][]> {
  const out: [string, string[], string[]][] = [];
  for (const [type, collection, args] of INVENTORY) {
    const nsx = (await sim.must('GET', `/api/v1/fabric/${collection}?container_cluster_id=${nodeId}`)) as {
      results: { external_id: string }[];
    };
    const kubeItems = (await getJson(kube, args)).items as { metadata: { uid: string } }[];
    out.push([
      type,
      nsx.results.map((o) => o.external_id).sort(),
      kubeItems.map((o) => o.metadata.uid).sort(),
    ]);
  }
  return out;
}

async function inventoryMatches(): Promise<boolean> {
  return (await inventoryPairs()).every(([, a, b]) => JSON.stringify(a) === JSON.stringify(b));
}

beforeAll(async () => {
  kube = await startKube({ controllerManager: true });
  await installCrds(kube);
  dir = await mkdtemp(join(tmpdir(), 'nsx-adapter-mp-'));
  sim = new LoopbackSim(join(dir, 'sim-state.json'));
  await sim.start();
  const { cert } = await generateClientCertificate(dir, CLUSTER);
  nodeId = ((await sim.must('PUT', `${CCP}/${CLUSTER}`, { certificate: cert })) as { node_id: string })
    .node_id;
  client = new NsxClient({ baseUrl: sim.url, timeoutMs: 5000 });
  adapter = new MpAdapter({
    channel: new NsxRestChannel(client, CLUSTER),
    inventory: new KubeInventorySource(kube.kubeConfig, logger),
    crds: new KubeCrdClient(kube.kubeConfig),
    logger,
    clusterName: CLUSTER,
    ccpHealth: () => ({ status: 'UP', conditions: [] }),
    managedPolicies: { list: () => managedAcnps as never },
    stats: { clusterNetworkPolicyStats: async () => stats },
    heartbeatIntervalMs: 300,
    statsIntervalMs: 300,
    troubleshootPollMs: 100,
    inventoryBatchPeriodMs: 100,
    backoffInitialMs: 100,
    backoffMaxMs: 500,
    bundleFileServer: {
      url: 'sftp://files.example.test:22/upload',
      authType: 'BasicAuthentication',
      authSecret: { name: 'bundle-auth', namespace: 'kube-system' },
    },
    bundleWaitMs: 20_000,
  });
  await adapter.start();
});

afterAll(async () => {
  await adapter?.stop();
  client?.close();
  await sim?.stop();
  await kube?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const yaml = (o: unknown) => JSON.stringify(o);

describe('MP adapter with kube-apiserver and the NSX simulator', () => {
  it('inventory in NSX follows the cluster through Pod and Namespace churn', async () => {
    await eventually(inventoryMatches, 'initial inventory');
    const cluster = (await sim.must('GET', `/api/v1/fabric/container-clusters/${nodeId}`)) as Record<
      string,
      unknown
    >;
    expect(cluster).toMatchObject({ display_name: CLUSTER, cluster_type: 'Kubernetes', cni_type: 'Antrea' });

    await kube.kubectl(['apply', '-f', '-'], {
      input: yaml({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a' } } },
          { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1', labels: { zone: 'z1' } } },
        ],
      }),
    });
    const pods = ['web-1', 'web-2', 'db-1'].map((name) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'shop', labels: { app: name.split('-')[0] } },
      spec: { containers: [{ name: 'c', image: 'registry.invalid/none' }] },
    }));
    await kube.kubectl(['apply', '-f', '-'], {
      input: yaml({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          ...pods,
          {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 'web', namespace: 'shop' },
            spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
          },
          {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            metadata: { name: 'deny', namespace: 'shop' },
            spec: { podSelector: {} },
          },
        ],
      }),
    });
    await eventually(inventoryMatches, 'inventory after creates');
    const web1 = await getJson(kube, ['get', 'pod', '-n', 'shop', 'web-1']);
    const svc = await getJson(kube, ['get', 'service', '-n', 'shop', 'web']);
    const ns = await getJson(kube, ['get', 'namespace', 'shop']);
    const inst = (await sim.must(
      'GET',
      `/api/v1/fabric/container-application-instances/${web1.metadata.uid}`,
    )) as Record<string, unknown>;
    expect(inst).toMatchObject({
      display_name: 'web-1',
      container_cluster_id: nodeId,
      container_project_id: ns.metadata.uid,
      container_application_ids: [svc.metadata.uid],
      tags: [{ scope: 'dis:k8s:app', tag: 'web' }],
    });
    const project = (await sim.must('GET', `/api/v1/fabric/container-projects/${ns.metadata.uid}`)) as {
      tags: unknown[];
    };
    expect(project.tags).toContainEqual({ scope: 'dis:k8s:team', tag: 'a' });

    // Label change, Pod deletion, Namespace deletion (cascading to its Pods, Service and policy).
    await kube.kubectl(['label', 'pod', '-n', 'shop', 'web-2', 'app=canary', '--overwrite']);
    await kube.kubectl(['delete', 'pod', '-n', 'shop', 'db-1', '--grace-period=0', '--force']);
    const web2 = await getJson(kube, ['get', 'pod', '-n', 'shop', 'web-2']);
    await eventually(async () => {
      const o = (await sim.must(
        'GET',
        `/api/v1/fabric/container-application-instances/${web2.metadata.uid}`,
      )) as { tags: { tag: string }[]; container_application_ids: string[] };
      return o.tags[0]?.tag === 'canary' && o.container_application_ids.length === 0;
    }, 'label update');
    await eventually(inventoryMatches, 'inventory after Pod deletion');
    await kube.kubectl(['delete', 'namespace', 'shop', '--wait=true', '--timeout=60s']);
    await kube.kubectl(['delete', 'node', 'worker-1']);
    await eventually(inventoryMatches, 'inventory after Namespace deletion', 60_000);
    const left = (await sim.must(
      'GET',
      `/api/v1/fabric/container-application-instances?container_cluster_id=${nodeId}`,
    )) as { results: unknown[] };
    expect(left.results).toEqual([]);
  });

  it('heartbeats AntreaClusterInfo from the monitoring CRs', async () => {
    const status = async () =>
      (await sim.must('GET', `${CCP}/${CLUSTER}/status`)) as Record<string, { status?: string }> & {
        status: string;
      };
    // No AntreaControllerInfo yet: the controller is reported DOWN, so the cluster is FAILED.
    await eventually(async () => (await status()).status === 'FAILED', 'FAILED without controller');
    const now = new Date().toISOString();
    // A heartbeat may land between the two objects (HEALTHY, no agent yet): the wait below wants both.
    await kube.kubectl(['apply', '-f', '-'], {
      input: yaml({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'crd.antrea.io/v1beta1',
            kind: 'AntreaControllerInfo',
            metadata: { name: 'antrea-controller' },
            version: 'v2.3.0',
            connectedAgentNum: 1,
            controllerConditions: [{ type: 'ControllerHealthy', status: 'True', lastHeartbeatTime: now }],
          },
          {
            apiVersion: 'crd.antrea.io/v1beta1',
            kind: 'AntreaAgentInfo',
            metadata: { name: 'worker-9' },
            agentConditions: [{ type: 'AgentHealthy', status: 'True', lastHeartbeatTime: now }],
          },
        ],
      }),
    });
    try {
      const s = await eventually(async () => {
        const x = await status();
        const agents = (x as unknown as { agent_info?: { healthy_agent_num?: number } }).agent_info;
        return x.status === 'HEALTHY' && agents?.healthy_agent_num === 1 ? x : undefined;
      }, 'HEALTHY');
      expect(s).toMatchObject({
        controller_status: { status: 'UP', connected_agent_num: 1 },
        mp_adapter_status: { status: 'UP' },
        ccp_adapter_status: { status: 'UP' },
        agent_info: { healthy_agent_num: 1, degraded_agent_num: 0, failed_agent_num: 0 },
      });
      expect(adapter.heartbeats).toBeGreaterThan(1);
    } finally {
      await kube.kubectl(['delete', 'antreacontrollerinfo', 'antrea-controller', '--ignore-not-found']);
      await kube.kubectl(['delete', 'antreaagentinfo', 'worker-9', '--ignore-not-found']);
    }
  });

  it('runs an NSX traceflow through a Traceflow CR and reports the observations', async () => {
    await kube.kubectl(['create', 'namespace', 'tf']);
    try {
      await kube.kubectl(['apply', '-f', '-'], {
        input: yaml({
          apiVersion: 'v1',
          kind: 'List',
          items: ['src', 'dst'].map((name) => ({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name, namespace: 'tf' },
            spec: { containers: [{ name: 'c', image: 'registry.invalid/none' }] },
          })),
        }),
      });
      const uid = async (name: string) =>
        (await getJson(kube, ['get', 'pod', '-n', 'tf', name])).metadata.uid as string;
      const [src, dst] = [await uid('src'), await uid('dst')];
      // The traceflow config needs both Pods in NSX's inventory.
      await eventually(
        async () =>
          (await sim.call('GET', `/api/v1/fabric/container-application-instances/${dst}`)).status === 200,
        'pods in inventory',
      );
      await sim.must('PUT', '/policy/api/v1/infra/antrea/traceflows/tf-1', {
        container_cluster_id: nodeId,
        source_external_id: src,
        destination_external_id: dst,
        packet: {
          resource_type: 'FIELDS_PACKET_DATA',
          ip_header: { protocol: 6, ttl: 64 },
          transport_header: { tcp_header: { dst_port: 80, tcp_flags: 2 } },
        },
      });
      const cr = await eventually(
        async () => getJson(kube, ['get', 'traceflow', 'nsx-tf-1']),
        'Traceflow CR',
      );
      expect(cr.spec).toEqual({
        source: { namespace: 'tf', pod: 'src' },
        destination: { namespace: 'tf', pod: 'dst' },
        packet: { ipHeader: { protocol: 6, ttl: 64 }, transportHeader: { tcp: { dstPort: 80, flags: 2 } } },
      });
      expect(
        ((await sim.must('GET', '/policy/api/v1/infra/antrea/traceflows/tf-1/status')) as { phase: string })
          .phase,
      ).toBe('RUNNING');
      // Stand in for the Antrea controller.
      await kube.kubectl([
        'patch',
        'traceflow',
        'nsx-tf-1',
        '--subresource=status',
        '--type=merge',
        '-p',
        yaml({
          status: {
            phase: 'Succeeded',
            results: [
              {
                node: 'worker-1',
                role: 'sender',
                timestamp: 1700000000,
                observations: [
                  { component: 'SpoofGuard', action: 'Forwarded' },
                  { component: 'Forwarding', action: 'Delivered' },
                ],
              },
            ],
          },
        }),
      ]);
      await eventually(
        async () =>
          ((await sim.must('GET', '/policy/api/v1/infra/antrea/traceflows/tf-1/status')) as { phase: string })
            .phase === 'SUCCEEDED',
        'SUCCEEDED',
      );
      const obs = (await sim.must('GET', '/policy/api/v1/infra/antrea/traceflows/tf-1/observations')) as {
        results: unknown[];
      };
      expect(obs.results).toEqual([
        expect.objectContaining({
          component_type: 'ANTREA_SPOOFGUARD',
          observation_type: 'AntreaTraceflowObservationForwarded',
          timestamp: 1700000000000,
        }),
        expect.objectContaining({
          component_type: 'ANTREA_FORWARDING',
          observation_type: 'AntreaTraceflowObservationDelivered',
        }),
      ]);
      await eventually(
        async () => (await getJson(kube, ['get', 'traceflows'])).items.length === 0,
        'Traceflow CR removed',
      );
    } finally {
      await sim.call('DELETE', '/policy/api/v1/infra/antrea/traceflows/tf-1');
      await kube.kubectl(['delete', 'namespace', 'tf', '--wait=false']);
    }
  });

  it('asks Antrea for bundles with a SupportBundleCollection and uploads the adapter archive', async () => {
    const req = (await sim.must('POST', '/api/v1/administration/support-bundles?action=collect', {
      container_nodes: [
        { container_type: 'ANTREA', clusters: [{ cluster_id: nodeId, nodes: ['worker-1'] }] },
      ],
      log_age_limit: 2,
    })) as { request_id: string };
    const name = `nsx-${req.request_id}`;
    const sbc = await eventually(
      async () => getJson(kube, ['get', 'supportbundlecollection', name]),
      'SupportBundleCollection',
    );
    expect(sbc.spec).toEqual({
      nodes: { nodeNames: ['worker-1'] },
      expirationMinutes: 60,
      sinceTime: '48h',
      fileServer: { url: 'sftp://files.example.test:22/upload' },
      authentication: {
        authType: 'BasicAuthentication',
        authSecret: { name: 'bundle-auth', namespace: 'kube-system' },
      },
    });
    // Stand in for the Antrea controller finishing the collection.
    await kube.kubectl([
      'patch',
      'supportbundlecollection',
      name,
      '--subresource=status',
      '--type=merge',
      '-p',
      yaml({
        status: { collectedNodes: 1, desiredNodes: 1, conditions: [{ type: 'Completed', status: 'True' }] },
      }),
    ]);
    await eventually(
      async () =>
        (
          (await sim.must(
            'GET',
            `/api/v1/administration/support-bundles/container-requests/${req.request_id}`,
          )) as { status: string }
        ).status === 'COMPLETED',
      'bundle',
    );
    const res = await fetch(
      `${sim.url}/api/v1/administration/support-bundles/container-requests/${req.request_id}/clusters/${nodeId}/archive`,
    );
    const tar = gunzipSync(Buffer.from(await res.arrayBuffer()));
    expect(tar.subarray(0, 13).toString()).toBe('manifest.json');
    const manifest = JSON.parse(
      tar.subarray(512, 512 + Number.parseInt(tar.subarray(124, 135).toString(), 8)).toString(),
    );
    expect(manifest).toMatchObject({
      request_id: req.request_id,
      cluster_id: nodeId,
      antrea_bundles: {
        collected: true,
        supportBundleCollection: name,
        status: { collectedNodes: 1, desiredNodes: 1 },
      },
    });
    expect(manifest.files).toContain('clusterinfo/pods.json');
    await kube.kubectl(['delete', 'supportbundlecollection', name]);
  });

  it('pushes rule statistics of NSX-managed policies', async () => {
    await sim.must('PATCH', `${SP}/stats`, {
      category: 'Application',
      rules: [{ id: 'r1', action: 'ALLOW', direction: 'IN' }],
    });
    await sim.must('PATCH', `${SP}/stats/container-cluster-span/${CLUSTER}`, {
      container_cluster_path: CLUSTER_PATH,
    });
    try {
      const p = (await sim.must('GET', `${SP}/stats`)) as {
        unique_id: string;
        rules: { rule_id: number; path: string }[];
      };
      const ruleId = p.rules[0]?.rule_id as number;
      managedAcnps.push({
        metadata: {
          name: p.unique_id,
          annotations: { 'ccp-adapter.antrea.tanzu.vmware.com/nsx-path': `${SP}/stats` },
        },
      });
      stats = [
        {
          name: p.unique_id,
          ruleTrafficStats: [
            { name: String(ruleId), trafficStats: { packets: 12, bytes: 3400, sessions: 2 } },
          ],
        },
      ];
      const read = async () =>
        (await sim.must('GET', `${SP}/stats/statistics?container_cluster_path=${CLUSTER_PATH}`)) as {
          results: { statistics: { results: { packet_count: number }[] } }[];
        };
      const s = await eventually(async () => {
        const r = await read();
        return r.results[0]?.statistics.results[0]?.packet_count === 12 ? r : undefined;
      }, 'statistics');
      expect(s.results[0]?.statistics.results[0]).toMatchObject({
        packet_count: 12,
        byte_count: 3400,
        session_count: 2,
      });
    } finally {
      stats = [];
      managedAcnps.length = 0;
      await sim.must('DELETE', `${SP}/stats`);
    }
  });
});
