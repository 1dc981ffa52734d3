import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CCP, SP, startTestSim, type TestSim } from '../test-support.js';
import { generateClientCertificate } from '../tls/self-signed.js';

let dir: string;
let certA: string;
let certB: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsx-sim-ccp-'));
  certA = (await generateClientCertificate(dir, 'cluster-a')).cert;
  certB = (await generateClientCertificate(dir, 'cluster-b')).cert;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const healthy = {
  controller_status: { status: 'UP', connected_agent_num: 3 },
  mp_adapter_status: { status: 'UP' },
  ccp_adapter_status: { status: 'UP' },
  agent_info: { healthy_agent_num: 3, degraded_agent_num: 0, failed_agent_num: 0 },
};

describe('cluster control planes', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
  });
  afterEach(async () => {
    await sim.app.close();
  });

  it('PUT registers a cluster, assigns node_id and creates heartbeat-config', async () => {
    const res = await sim.call('PUT', `${CCP}/cluster-a`, {
      resource_type: 'AntreaClusterControlPlane',
      certificate: certA,
      _revision: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 'cluster-a',
      resource_type: 'AntreaClusterControlPlane',
      node_type: 'ANTREA_NODE',
      path: '/infra/sites/default/enforcement-points/default/cluster-control-planes/cluster-a',
      _revision: 0,
    });
    expect(res.body.node_id).toMatch(/^[0-9a-f-]{36}$/);
    const hb = await sim.call('GET', `${CCP}/cluster-a/heartbeat-config`);
    expect(hb.body).toMatchObject({ resource_type: 'AntreaHeartbeatConfig', report_interval: 60 });
    const list = await sim.call('GET', CCP);
    expect(list.body.results.map((c: { id: string }) => c.id)).toEqual(['cluster-a']);
    expect((await sim.call('PATCH', `${CCP}/cluster-a`, {})).status).toBe(404);
  });

  it('keeps a restored node_id, requires a valid certificate and refuses a certificate reused by another cluster', async () => {
    const restored = await sim.call('PUT', `${CCP}/cluster-a`, { certificate: certA, node_id: 'fixed-id' });
    expect(restored.body.node_id).toBe('fixed-id');
    expect((await sim.call('PUT', `${CCP}/nocert`, {})).body.error_message).toContain(
      'certificate is required',
    );
    expect((await sim.call('PUT', `${CCP}/junk`, { certificate: 'not a cert' })).status).toBe(400);
    const dup = await sim.call('PUT', `${CCP}/cluster-b`, { certificate: certA });
    expect(dup.status).toBe(400);
    expect(dup.body.error_code).toBe(220);
    expect(dup.body.error_message).toContain(
      'certificate conflict with clusterControlPlane node id fixed-id',
    );
    expect((await sim.call('PUT', `${CCP}/cluster-b`, { certificate: certB })).status).toBe(200);
    expect((await sim.call('PUT', `${P_SITE('other')}/cluster-c`, { certificate: certB })).status).toBe(404);
  });

  it('status is UNKNOWN before any heartbeat, then follows the reported component health', async () => {
    await sim.call('PUT', `${CCP}/cluster-a`, { certificate: certA });
    expect((await sim.call('GET', `${CCP}/cluster-a/status`)).body).toMatchObject({
      status: 'UNKNOWN',
      last_heartbeat_time: null,
    });

    const hb = await sim.call('PATCH', `${CCP}/cluster-a/status`, healthy);
    expect(hb.status).toBe(200);
    const st = (await sim.call('GET', `${CCP}/cluster-a/status`)).body;
    expect(st).toMatchObject({
      resource_type: 'AntreaClusterInfo',
      status: 'HEALTHY',
      last_heartbeat_time: sim.clock.now(),
      heartbeat_count: 1,
      controller_status: { status: 'UP', connected_agent_num: 3 },
    });

    await sim.call('PUT', `${CCP}/cluster-a/status`, {
      ...healthy,
      agent_info: { healthy_agent_num: 2, failed_agent_num: 1 },
    });
    expect((await sim.call('GET', `${CCP}/cluster-a/status`)).body.status).toBe('DEGRADED');
    await sim.call('PUT', `${CCP}/cluster-a/status`, { ...healthy, ccp_adapter_status: { status: 'DOWN' } });
    const down = (await sim.call('GET', `${CCP}/cluster-a/status`)).body;
    expect(down.status).toBe('FAILED');
    expect(down.heartbeat_count).toBe(3);
    const bad = await sim.call('PATCH', `${CCP}/cluster-a/status`, {
      controller_status: { status: 'SLEEPY' },
    });
    expect(bad.status).toBe(400);
  });

  it('status goes UNKNOWN after three missed report intervals', async () => {
    await sim.call('PUT', `${CCP}/cluster-a`, { certificate: certA });
    const cfg = (await sim.call('GET', `${CCP}/cluster-a/heartbeat-config`)).body;
    const upd = await sim.call('PUT', `${CCP}/cluster-a/heartbeat-config`, {
      report_interval: 120,
      _revision: cfg._revision,
    });
    expect(upd.status).toBe(200);
    expect(upd.body.report_interval).toBe(120);
    expect(
      (await sim.call('PATCH', `${CCP}/cluster-a/heartbeat-config`, { report_interval: 30 })).status,
    ).toBe(400);
    await sim.call('PATCH', `${CCP}/cluster-a/status`, healthy);
    sim.clock.advance(3 * 120 * 1000);
    expect((await sim.call('GET', `${CCP}/cluster-a/status`)).body.status).toBe('HEALTHY');
    sim.clock.advance(1);
    expect((await sim.call('GET', `${CCP}/cluster-a/status`)).body.status).toBe('UNKNOWN');
    await sim.call('PATCH', `${CCP}/cluster-a/status`, healthy);
    expect((await sim.call('GET', `${CCP}/cluster-a/status`)).body.status).toBe('HEALTHY');
  });

  it('DELETE refuses while policies span the cluster unless cascade=true, which removes the spans', async () => {
    await sim.call('PUT', `${CCP}/cluster-a`, { certificate: certA });
    await sim.call('PATCH', `${SP}/p1`, { category: 'Application' });
    const span = await sim.call('PATCH', `${SP}/p1/container-cluster-span/cluster-a`, {
      container_cluster_path:
        '/infra/sites/default/enforcement-points/default/cluster-control-planes/cluster-a',
    });
    expect(span.status).toBe(200);
    expect(
      (await sim.call('GET', `${SP}/p1/container-cluster-span/cluster-a`)).body.container_cluster_type,
    ).toBe('ANTREA');
    const refused = await sim.call('DELETE', `${CCP}/cluster-a`);
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe(500030);
    await sim.call('PATCH', `${CCP}/cluster-a/status`, healthy);
    expect((await sim.call('DELETE', `${CCP}/cluster-a?cascade=true`)).status).toBe(200);
    expect((await sim.call('GET', `${CCP}/cluster-a`)).status).toBe(404);
    expect((await sim.call('GET', `${SP}/p1/container-cluster-span`)).body.result_count).toBe(0);
    expect((await sim.call('GET', `${SP}/p1`)).status).toBe(200);
    expect(sim.store.state.cluster_health['cluster-a']).toBeUndefined();
    const bad = await sim.call('PATCH', `${SP}/p1/container-cluster-span/x`, {
      container_cluster_path: '/infra/domains/default',
    });
    expect(bad.status).toBe(400);
  });
});

function P_SITE(site: string): string {
  return `/policy/api/v1/infra/sites/${site}/enforcement-points/default/cluster-control-planes`;
}

describe('principal identities and authentication', () => {
  it('admin basic auth, PI client certificates, and NSX 403 bodies otherwise', async () => {
    let presented: Buffer | undefined;
    const sim = await startTestSim({
      auth: { adminUser: 'admin', adminPassword: 'pw' },
      clientCertificate: () => presented,
    });
    const basic = (u: string, p: string) => ({
      authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`,
    });
    const anon = await sim.call('GET', '/api/v1/trust-management/principal-identities');
    expect(anon.status).toBe(403);
    expect(anon.body).toMatchObject({
      error_code: 403,
      module_name: 'common-services',
      error_message: 'The credentials were incorrect or the account specified has been locked.',
    });
    expect(
      (
        await sim.call(
          'GET',
          '/api/v1/trust-management/principal-identities',
          undefined,
          basic('admin', 'no'),
        )
      ).status,
    ).toBe(403);

    const created = await sim.call(
      'POST',
      '/api/v1/trust-management/principal-identities/with-certificate',
      {
        name: 'cluster-a',
        node_id: 'cluster-a',
        role: 'enterprise_admin',
        roles_for_paths: [{ path: '/', roles: [{ role: 'enterprise_admin' }] }],
        is_protected: true,
        certificate_pem: certA,
      },
      basic('admin', 'pw'),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'cluster-a',
      node_id: 'cluster-a',
      is_protected: true,
      resource_type: 'PrincipalIdentity',
    });
    expect(created.body.certificate_pem).toBeUndefined();
    const again = await sim.call(
      'POST',
      '/api/v1/trust-management/principal-identities/with-certificate',
      { name: 'cluster-a', node_id: 'cluster-a', certificate_pem: certA },
      basic('admin', 'pw'),
    );
    expect(again.status).toBe(409);

    // The PI's certificate now authenticates as "cluster-a"; an unknown certificate does not.
    presented = new X509Certificate(certA).raw;
    const reg = await sim.call('PUT', `${CCP}/cluster-a`, { certificate: certA });
    expect(reg.status).toBe(200);
    expect(reg.body._create_user).toBe('cluster-a');
    expect(reg.body._protection).toBe('PROTECTED');
    presented = new X509Certificate(certB).raw;
    expect((await sim.call('GET', `${CCP}/cluster-a`)).status).toBe(403);
    // /sim/ needs no credentials.
    presented = undefined;
    expect((await sim.call('GET', '/sim/state')).status).toBe(200);

    // Objects of a protected PI: the admin needs X-Allow-Overwrite (the documented cleanup curl).
    const refused = await sim.call(
      'DELETE',
      `${CCP}/cluster-a?cascade=true`,
      undefined,
      basic('admin', 'pw'),
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error_message).toContain('X-Allow-Overwrite');
    presented = new X509Certificate(certA).raw;
    const own = await sim.call('PUT', `${CCP}/cluster-a`, {
      certificate: certA,
      description: 'mine',
      _revision: 0,
    });
    expect(own.status).toBe(200);
    presented = undefined;
    const forced = await sim.call('DELETE', `${CCP}/cluster-a?cascade=true`, undefined, {
      ...basic('admin', 'pw'),
      'x-allow-overwrite': 'true',
    });
    expect(forced.status).toBe(200);
    expect((await sim.call('GET', `${CCP}/cluster-a`, undefined, basic('admin', 'pw'))).status).toBe(404);

    const list = await sim.call(
      'GET',
      '/api/v1/trust-management/principal-identities',
      undefined,
      basic('admin', 'pw'),
    );
    expect(list.body.result_count).toBe(1);
    const id = list.body.results[0].id;
    expect(
      (
        await sim.call(
          'DELETE',
          `/api/v1/trust-management/principal-identities/${id}`,
          undefined,
          basic('admin', 'pw'),
        )
      ).status,
    ).toBe(200);
    presented = new X509Certificate(certA).raw;
    expect((await sim.call('GET', CCP)).status).toBe(403);
    await sim.app.close();
  });
});
