// antctl against the controller's real API server infrastructure (@antrea-ts/apiserver: delegated
// authentication of the aggregator's front-proxy identity, SubjectAccessReview authorization,
// discovery, Status errors) registered behind the Antrea APIServices of a real kube-apiserver. The
// handlers serve objects in the controller's internal form (IPs as Uint8Array).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ADDRESS_GROUPS,
  APPLIED_TO_GROUPS,
  CONTROLLER_INFO,
  NETWORK_POLICIES,
} from '@antrea-ts/antctl/testing';
import { ApiError, ResourceRegistry, SelfSignedCertManager, serviceDnsNames } from '@antrea-ts/apiserver';
import {
  type ExtensionServerSetup,
  getRawWhenServed,
  type KubeCluster,
  makeTempDir,
  startExtensionServerSetup,
  type TempDir,
} from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AntreaApiServer, serveAntreaApis } from '../apiserver/antrea-api-server.js';
import { antctl } from './helpers.js';

const SERVER_IP = '198.18.253.1';
const logger = pino({ level: 'silent' });

/** The wire fixtures turned back into the controller's internal form: IPs as raw bytes. */
function internal<T extends { items: { groupMembers?: { ips?: string[] }[] }[] }>(list: T) {
  return {
    ...list,
    items: list.items.map((g) => ({
      ...g,
      groupMembers: g.groupMembers?.map((m) => ({
        ...m,
        ips: m.ips?.map((b64) => new Uint8Array(Buffer.from(b64, 'base64'))),
      })),
    })),
  };
}

function listAndGet(group: string, resource: string, list: { items: { metadata: { name: string } }[] }) {
  return {
    list: () => list,
    get: (req: { info: { name?: string } }) => {
      const item = list.items.find((i) => i.metadata.name === req.info.name);
      if (!item) throw ApiError.notFound({ group, resource }, req.info.name);
      return item;
    },
  };
}

describe('antctl against the real controller API server behind the aggregator', () => {
  let setup: ExtensionServerSetup;
  let kube: KubeCluster;
  let antrea: AntreaApiServer;
  let tmp: TempDir;
  const certs = new SelfSignedCertManager({
    logger,
    dnsNames: serviceDnsNames('antrea', 'kube-system'),
    ipAddresses: [SERVER_IP],
  });

  beforeAll(async () => {
    setup = await startExtensionServerSetup({ ip: SERVER_IP, logger });
    kube = setup.kube;
    tmp = makeTempDir('antctl-real');

    const registry = new ResourceRegistry();
    const cp = (name: string, kind: string, list: { items: { metadata: { name: string } }[] }) =>
      registry.register('controlplane.antrea.io', 'v1beta2', {
        name,
        kind,
        namespaced: false,
        verbs: ['get', 'list'],
        handler: listAndGet('controlplane.antrea.io', name, list),
      });
    cp('networkpolicies', 'NetworkPolicy', NETWORK_POLICIES);
    cp('addressgroups', 'AddressGroup', internal(ADDRESS_GROUPS));
    cp('appliedtogroups', 'AppliedToGroup', internal(APPLIED_TO_GROUPS));
    registry.register('system.antrea.io', 'v1beta1', {
      name: 'controllerinfos',
      kind: 'AntreaControllerInfo',
      namespaced: false,
      verbs: ['get', 'list'],
      handler: listAndGet('system.antrea.io', 'controllerinfos', { items: [CONTROLLER_INFO] }),
    });
    registry.declareGroupVersion('stats.antrea.io', 'v1alpha1');

    antrea = await serveAntreaApis(setup, {
      logger,
      registry,
      certificates: certs,
      others: [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'no-rbac', namespace: 'kube-system' } },
      ],
    });
    await getRawWhenServed(kube, '/apis/controlplane.antrea.io/v1beta2/networkpolicies');
    await getRawWhenServed(kube, '/apis/system.antrea.io/v1beta1/controllerinfos/antrea-controller');
  });

  afterAll(async () => {
    await antrea?.stop();
    await setup?.stop();
    tmp?.remove();
  });

  it('get networkpolicy, addressgroup, appliedtogroup, controllerinfo and version', async () => {
    const kc = kube.kubeconfigPath;
    const np = await antctl(['get', 'netpol', '-k', kc]);
    expect(np.err).toBe('');
    expect(np.out).toContain(
      'a1f00000-0000-4000-8000-000000000001 atg-db,atg-web 2     K8sNetworkPolicy:default/allow-web',
    );
    const ag = await antctl(['get', 'ag', '-k', kc]);
    expect(ag.err).toBe('');
    expect(ag.out).toContain('ag-web   10.10.0.2,10.10.1.3 192.168.77.10');
    const atg = await antctl(['get', 'atg', 'atg-db', '-o', 'json', '-k', kc]);
    expect(JSON.parse(atg.out)).toEqual({
      name: 'atg-db',
      pods: [{ pod: { name: 'db-0', namespace: 'prod' }, ip: '10.10.2.4' }],
    });
    const ci = await antctl(['get', 'ci', '-k', kc]);
    expect(ci.out.split('\n')[1]).toMatch(/^kube-system\/antrea-controller-5d9f node-a Healthy/);
    const v = await antctl(['version', '-k', kc]);
    expect(v.out).toBe('controllerVersion: v0.1.0-antrea-ts\nantctlVersion: 0.1.0-antrea-ts\n');
  });

  it('reports a missing name as not found', async () => {
    const r = await antctl(['get', 'netpol', 'nope', '-k', kube.kubeconfigPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^Error: networkpolicy "nope" not found/);
  });

  it('tells a user without RBAC what is missing', async () => {
    const token = (await kube.kubectl(['-n', 'kube-system', 'create', 'token', 'no-rbac'])).trim();
    const cluster = kube.kubeConfig.getCurrentCluster();
    const kc = join(tmp.path, 'no-rbac.kubeconfig');
    writeFileSync(
      kc,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'c', cluster: { server: cluster?.server, 'certificate-authority': kube.ca.cert } },
        ],
        users: [{ name: 'u', user: { token } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const r = await antctl(['get', 'netpol', '-k', kc]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('not allowed to get networkpolicies (403 Forbidden');
    expect(r.err).toContain('your kubeconfig user needs RBAC permission');
  });
});
