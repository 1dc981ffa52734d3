import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestSim, type TestSim } from '../test-support.js';

const CID = 'c0ffee00-0000-4000-8000-000000000001';
const batch = (...items: [string, object][]) => ({
  container_inventory_objects: items.map(([object_update_type, container_object]) => ({
    object_update_type,
    container_object,
  })),
});
const cluster = {
  resource_type: 'ContainerCluster',
  external_id: CID,
  display_name: 'kind-1',
  cluster_type: 'Kubernetes',
  cni_type: 'Antrea',
  infrastructure: { infra_type: 'KVM' },
};
const ns = (id: string, name: string) => ({
  resource_type: 'ContainerProject',
  external_id: id,
  display_name: name,
});
const pod = (id: string, nsId: string, labels: Record<string, string>) => ({
  resource_type: 'ContainerApplicationInstance',
  external_id: id,
  display_name: id,
  container_project_id: nsId,
  cluster_node_id: 'node-1',
  status: 'UP',
  tags: Object.entries(labels).map(([k, v]) => ({ scope: `dis:k8s:${k}`, tag: v })),
  origin_properties: [{ key: 'ip', value: '10.10.0.5' }],
});
const URL = `/api/v1/inventory/container/${CID}?action=updates`;

describe('container inventory', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.app.close();
  });

  it('applies a batch of CREATEs and serves them from the fabric read endpoints', async () => {
    const res = await sim.call(
      'POST',
      URL,
      batch(
        ['CREATE', cluster],
        ['CREATE', ns('ns-a', 'frontend')],
        ['CREATE', ns('ns-b', 'backend')],
        ['CREATE', pod('pod-1', 'ns-a', { app: 'web' })],
      ),
    );
    expect(res.status).toBe(200);
    const clusters = await sim.call('GET', '/api/v1/fabric/container-clusters');
    expect(clusters.body.results).toEqual([
      expect.objectContaining({ external_id: CID, cni_type: 'Antrea' }),
    ]);
    const projects = await sim.call('GET', `/api/v1/fabric/container-projects?container_cluster_id=${CID}`);
    expect(projects.body.result_count).toBe(2);
    expect(projects.body.results[0]).toMatchObject({
      container_cluster_id: CID,
      _last_sync_time: sim.clock.now(),
    });
    const pods = await sim.call(
      'GET',
      '/api/v1/fabric/container-application-instances?container_project_id=ns-a',
    );
    expect(pods.body.results).toHaveLength(1);
    expect(pods.body.results[0].tags).toEqual([{ scope: 'dis:k8s:app', tag: 'web' }]);
    expect(
      (await sim.call('GET', '/api/v1/fabric/container-application-instances?container_project_id=ns-b')).body
        .result_count,
    ).toBe(0);
    expect(
      (await sim.call('GET', '/api/v1/fabric/container-application-instances/pod-1')).body
        .container_cluster_id,
    ).toBe(CID);
    expect((await sim.call('GET', '/api/v1/fabric/container-application-instances/pod-9')).status).toBe(404);
    expect(
      (await sim.call('GET', `/api/v1/fabric/container-clusters?cluster_type=Openshift`)).body.result_count,
    ).toBe(0);
  });

  it('UPDATE merges only the properties sent; DELETE removes', async () => {
    await sim.call('POST', URL, batch(['CREATE', cluster], ['CREATE', pod('pod-1', 'ns-a', { app: 'web' })]));
    sim.clock.advance(1000);
    await sim.call(
      'POST',
      URL,
      batch([
        'UPDATE',
        { resource_type: 'ContainerApplicationInstance', external_id: 'pod-1', status: 'DOWN' },
      ]),
    );
    const p = (await sim.call('GET', '/api/v1/fabric/container-application-instances/pod-1')).body;
    expect(p.status).toBe('DOWN');
    expect(p.tags).toEqual([{ scope: 'dis:k8s:app', tag: 'web' }]);
    expect(p._last_sync_time).toBe(sim.clock.now());
    await sim.call(
      'POST',
      URL,
      batch(['DELETE', { resource_type: 'ContainerApplicationInstance', external_id: 'pod-1' }]),
    );
    expect((await sim.call('GET', '/api/v1/fabric/container-application-instances/pod-1')).status).toBe(404);
  });

  it('rejects a whole batch when one item is invalid', async () => {
    await sim.call('POST', URL, batch(['CREATE', cluster]));
    const res = await sim.call(
      'POST',
      URL,
      batch(
        ['CREATE', ns('ns-a', 'frontend')],
        ['UPDATE', { resource_type: 'ContainerProject', external_id: 'ghost' }],
      ),
    );
    expect(res.status).toBe(400);
    expect(res.body.related_errors).toHaveLength(1);
    expect(res.body.error_message).toContain('cannot UPDATE an object that does not exist');
    expect((await sim.call('GET', '/api/v1/fabric/container-projects')).body.result_count).toBe(0);
  });

  it('needs the cluster before its objects and checks ids against the URL', async () => {
    const noCluster = await sim.call('POST', URL, batch(['CREATE', ns('ns-a', 'a')]));
    expect(noCluster.status).toBe(400);
    expect(noCluster.body.error_message).toContain('create the ContainerCluster first');
    const wrongId = await sim.call('POST', URL, batch(['CREATE', { ...cluster, external_id: 'other' }]));
    expect(wrongId.status).toBe(400);
    const badType = await sim.call(
      'POST',
      URL,
      batch(['CREATE', { resource_type: 'VirtualMachine', external_id: 'x' }]),
    );
    expect(badType.status).toBe(400);
    const noAction = await sim.call('POST', `/api/v1/inventory/container/${CID}`, batch(['CREATE', cluster]));
    expect(noAction.status).toBe(400);
  });

  it('deleting the cluster removes everything that belongs to it', async () => {
    await sim.call(
      'POST',
      URL,
      batch(['CREATE', cluster], ['CREATE', ns('ns-a', 'a')], ['CREATE', pod('p', 'ns-a', {})]),
    );
    const other = 'other-cluster';
    await sim.call('POST', '/api/v1/fabric/container-clusters', { ...cluster, external_id: other });
    await sim.call(
      'POST',
      `/api/v1/inventory/container/${other}?action=updates`,
      batch(['CREATE', ns('ns-x', 'x')]),
    );
    await sim.call('POST', URL, batch(['DELETE', { resource_type: 'ContainerCluster', external_id: CID }]));
    expect(
      (await sim.call('GET', '/api/v1/fabric/container-clusters')).body.results.map(
        (c: { external_id: string }) => c.external_id,
      ),
    ).toEqual([other]);
    expect(
      (await sim.call('GET', '/api/v1/fabric/container-projects')).body.results.map(
        (c: { external_id: string }) => c.external_id,
      ),
    ).toEqual(['ns-x']);
    expect((await sim.call('GET', '/api/v1/fabric/container-application-instances')).body.result_count).toBe(
      0,
    );
    expect(
      (await sim.call('POST', '/api/v1/fabric/container-clusters', { ...cluster, external_id: other }))
        .status,
    ).toBe(409);
  });
});
