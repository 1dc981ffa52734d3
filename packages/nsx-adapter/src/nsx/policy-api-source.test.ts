import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateClientCertificate, memoryPersistence, NsxSimServer, SimStore } from '@antrea-ts/nsx-sim';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NsxRequestError } from '../errors.js';
import { NsxRestChannel } from './channels.js';
import { NsxClient } from './client.js';
import { PolicyApiCcpChannel } from './policy-api-source.js';

// The public-Policy-API feed must carry the same policies, groups and services as the simulator's
// /rpc feed (its definition of "what spans this cluster").

const logger = pino({ level: 'silent' });
const P = '/policy/api/v1';
const D = `${P}/infra/domains/default`;
const CLUSTER = '/infra/sites/default/enforcement-points/default/cluster-control-planes/kind-a';
let server: NsxSimServer;
let client: NsxClient;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsx-policy-api-'));
  server = new NsxSimServer({
    logger,
    store: new SimStore(memoryPersistence, logger),
    port: 0,
    auth: false,
    seed: true,
  });
  client = new NsxClient({ baseUrl: await server.start() });
  const { cert } = await generateClientCertificate(dir, 'kind-a');
  await client.request('PUT', `${P}${CLUSTER}`, { certificate: cert });
  const { cert: other } = await generateClientCertificate(dir, 'kind-b');
  await client.request('PUT', `${P}${CLUSTER.replace('kind-a', 'kind-b')}`, { certificate: other });
  await client.request('PATCH', `${D}/security-policies/k8s-core-dns/rules/extra`, {
    source_groups: ['/infra/domains/default/groups/web-pods'],
    services: ['/infra/services/web-8080'],
  });
  await client.request('PATCH', `${D}/security-policies/k8s-core-dns/container-cluster-span/kind-a`, {
    container_cluster_path: CLUSTER,
  });
  // web-to-db spans another cluster only.
  await client.request('PATCH', `${D}/security-policies/web-to-db/container-cluster-span/kind-b`, {
    container_cluster_path: CLUSTER.replace('kind-a', 'kind-b'),
  });
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('PolicyApiCcpChannel', () => {
  it('reads the same spanned policies, groups and services as the simulator feed, over public APIs only', async () => {
    const reports: unknown[] = [];
    const api = new PolicyApiCcpChannel(client, 'kind-a', {
      reportRealization: async (r) => void reports.push(...r),
    });
    const viaApi = await api.getFeed();
    const viaRpc = await new NsxRestChannel(client, 'kind-a').getFeed();
    const ids = (xs: { id: string }[]) => xs.map((x) => x.id).sort();
    expect(ids(viaApi.security_policies)).toEqual(['k8s-core-dns']);
    expect(ids(viaApi.security_policies)).toEqual(ids(viaRpc.security_policies));
    expect(ids(viaApi.groups)).toEqual(ids(viaRpc.groups));
    expect(ids(viaApi.groups)).toEqual(['kube-dns', 'web-pods']);
    expect(ids(viaApi.services)).toEqual(ids(viaRpc.services));
    expect(ids(viaApi.services)).toEqual(['DNS', 'DNS-UDP', 'web-8080']);
    expect(viaApi.policy_generation).toBeUndefined();
    expect(viaApi.security_policies[0]?.rules?.map((r) => r.id)).toEqual(
      viaRpc.security_policies[0]?.rules?.map((r) => r.id),
    );
    expect(viaApi.security_policies[0]?.container_cluster_span?.map((s) => s.container_cluster_path)).toEqual(
      [CLUSTER],
    );
    await api.reportRealization([{ intent_path: '/x', state: 'SUCCESS' }]);
    expect(reports).toHaveLength(1);
    // Without a realization channel reports go nowhere (real NSX has no public endpoint for them).
    await new PolicyApiCcpChannel(client, 'kind-a').reportRealization([
      { intent_path: '/x', state: 'SUCCESS' },
    ]);
  });

  it('follows PathExpressions and nested services, skips dangling references, reads rules a list omitted', async () => {
    const objects: Record<string, unknown> = {
      [`${D}/security-policies`]: {
        results: [{ id: 'p', path: '/infra/domains/default/security-policies/p' }],
      },
      [`${D}/security-policies/p/container-cluster-span`]: {
        results: [{ id: 's', path: '/s', container_cluster_path: CLUSTER }],
      },
      [`${D}/security-policies/p`]: {
        id: 'p',
        path: '/infra/domains/default/security-policies/p',
        rules: [
          {
            id: 'r',
            path: '/r',
            source_groups: ['/infra/domains/default/groups/a', '/infra/domains/default/groups/gone'],
            services: ['/infra/services/outer'],
          },
        ],
      },
      [`${D}/groups/a`]: {
        id: 'a',
        path: '/infra/domains/default/groups/a',
        expression: [{ resource_type: 'PathExpression', paths: ['/infra/domains/default/groups/b'] }],
      },
      [`${D}/groups/b`]: {
        id: 'b',
        path: '/infra/domains/default/groups/b',
        expression: [{ resource_type: 'PathExpression', paths: ['/infra/domains/default/groups/a'] }],
      },
      [`${P}/infra/services/outer`]: {
        id: 'outer',
        path: '/infra/services/outer',
        service_entries: [
          { resource_type: 'NestedServiceServiceEntry', nested_service_path: '/infra/services/inner' },
        ],
      },
      [`${P}/infra/services/inner`]: { id: 'inner', path: '/infra/services/inner', service_entries: [] },
    };
    const fake = {
      request: async <T>(_m: string, path: string): Promise<T> => {
        if (!(path in objects)) throw new NsxRequestError('GET', path, 404, { error_code: 600 });
        return structuredClone(objects[path]) as T;
      },
    };
    const feed = await new PolicyApiCcpChannel(fake, 'kind-a').getFeed();
    expect(feed.security_policies.map((p) => p.rules?.map((r) => r.id))).toEqual([['r']]);
    expect(feed.groups.map((g) => g.id)).toEqual(['a', 'b']);
    expect(feed.services.map((x) => x.id)).toEqual(['inner', 'outer']);
  });
});
