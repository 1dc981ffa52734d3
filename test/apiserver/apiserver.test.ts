import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import {
  type ApiRequest,
  FakeClock,
  parseCertBundle,
  ResourceRegistry,
  SelfSignedCertManager,
  serviceDnsNames,
} from '@antrea-ts/apiserver';
import {
  type ExtensionServerSetup,
  getRawWhenServed,
  type KubeCluster,
  serviceAccountWithClusterRole,
  startExtensionServerSetup,
  waitFor,
} from '@antrea-ts/harness';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AntreaApiServer, serveAntreaApis } from './antrea-api-server.js';

// The aggregator refuses loopback endpoints: serve on a veth address of our own (see
// startExtensionServerSetup), not the one another suite uses.
const SERVER_IP = '198.18.251.1';
const GROUP = 'controlplane.antrea.io';
const BASE = `/apis/${GROUP}/v1beta2`;
const HOUR = 3_600_000;
const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });

interface Reply {
  status: number;
  body: string;
  serial: string;
}

describe('antrea-controller API server against a real kube-apiserver', () => {
  let setup: ExtensionServerSetup;
  let kube: KubeCluster;
  let antrea: AntreaApiServer;
  // Half a day behind real time, so the rotation test can move to "now" and the new certificate
  // is valid for real peers (kube-apiserver and node:https check against their own clocks).
  const clock = new FakeClock(Date.now() - 9.5 * HOUR);
  // Short lifetimes so one step of the clock rotates the serving certificate and the CA.
  const certs = new SelfSignedCertManager({
    logger,
    clock,
    dnsNames: serviceDnsNames('antrea', 'kube-system'),
    ipAddresses: [SERVER_IP],
    validityMs: 10 * HOUR,
    caValidityMs: 10 * HOUR,
    renewBeforeMs: HOUR,
  });
  const seen: ApiRequest[] = [];
  const item = {
    apiVersion: `${GROUP}/v1beta2`,
    kind: 'NetworkPolicy',
    metadata: { name: 'np1', resourceVersion: '3' },
  };

  /** A GET over HTTPS with an optional bearer token (no client certificate); `serial` is the server's. */
  function httpsGet(
    url: URL,
    tls: { ca: string | Buffer; servername?: string },
    token?: string,
  ): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { ...tls, agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} },
        (res: IncomingMessage) => {
          const serial = (res.socket as TLSSocket).getPeerX509Certificate()?.serialNumber ?? '';
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), serial }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** A request to antrea-controller's API server, as kube-apiserver's aggregator would name it. */
  const call = (path: string, token?: string): Promise<Reply> =>
    httpsGet(
      new URL(path, `https://${SERVER_IP}:${antrea.server.address.port}`),
      { ca: certs.current().caBundlePem, servername: 'antrea.kube-system.svc' },
      token,
    );

  /** A request straight to kube-apiserver with a bearer token (no kubeconfig credentials). */
  const kubeCall = (path: string, token: string): Promise<Reply> =>
    httpsGet(new URL(path, kube.server), { ca: readFileSync(kube.ca.cert) }, token);

  beforeAll(async () => {
    setup = await startExtensionServerSetup({ ip: SERVER_IP, logger });
    kube = setup.kube;
    const registry = new ResourceRegistry();
    registry.register(GROUP, 'v1beta2', {
      name: 'networkpolicies',
      kind: 'NetworkPolicy',
      namespaced: false,
      verbs: ['get', 'list', 'watch'],
      handler: {
        list(req) {
          seen.push(req);
          return {
            apiVersion: `${GROUP}/v1beta2`,
            kind: 'NetworkPolicyList',
            metadata: { resourceVersion: '3' },
            items: [item],
          };
        },
        get: () => item,
        watch(req, sink) {
          seen.push(req);
          sink.send('ADDED', item);
          sink.send('BOOKMARK', {
            apiVersion: `${GROUP}/v1beta2`,
            kind: 'NetworkPolicy',
            metadata: { resourceVersion: '3' },
          });
          return undefined;
        },
      },
    });
    // Every APIService needs a group version that answers discovery, or the aggregator marks it unavailable.
    registry.declareGroupVersion('system.antrea.io', 'v1beta1');
    registry.declareGroupVersion('stats.antrea.io', 'v1alpha1');

    antrea = await serveAntreaApis(setup, {
      logger,
      registry,
      certificates: certs,
      others: [
        ...serviceAccountWithClusterRole({
          name: 'antrea-agent',
          namespace: 'kube-system',
          clusterRole: 'antrea-ts-test-agent',
          rules: [{ apiGroups: [GROUP], resources: ['networkpolicies'], verbs: ['get', 'list', 'watch'] }],
        }),
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'no-rbac', namespace: 'kube-system' } },
        { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } },
      ],
    });
  });

  afterAll(async () => {
    await antrea?.stop();
    certs.stop();
    await setup?.stop();
  });

  it('publishes the CA bundle to ConfigMap antrea-ca and the three APIServices', async () => {
    const bundle = certs.current().caBundlePem;
    const cm = JSON.parse(
      await kube.kubectl(['get', 'configmap', 'antrea-ca', '-n', 'kube-system', '-o', 'json']),
    );
    expect(cm.data['ca.crt']).toBe(bundle);
    for (const name of [
      'v1beta2.controlplane.antrea.io',
      'v1beta1.system.antrea.io',
      'v1alpha1.stats.antrea.io',
    ]) {
      const svc = JSON.parse(await kube.kubectl(['get', 'apiservice', name, '-o', 'json']));
      expect(Buffer.from(svc.spec.caBundle, 'base64').toString()).toBe(bundle);
      expect(svc.spec.service).toEqual({ name: 'antrea', namespace: 'kube-system', port: 443 });
    }
  });

  it('serves discovery and lists through the aggregator, with the caller from the front proxy', async () => {
    const resources = JSON.parse(await getRawWhenServed(kube, BASE));
    expect(resources.kind).toBe('APIResourceList');
    expect(resources.resources.map((r: { name: string }) => r.name)).toEqual(['networkpolicies']);
    const list = JSON.parse(await kube.kubectl(['get', '--raw', `${BASE}/networkpolicies`]));
    expect(list.items[0].metadata.name).toBe('np1');
    expect(seen.at(-1)!.user).toMatchObject({ username: 'admin', authenticatedBy: 'request-header' });
    expect(seen.at(-1)!.user.groups).toContain('system:masters');
    // A watch through the aggregator: initial ADDED then BOOKMARK, ended by timeoutSeconds.
    const watch = await kube.kubectl(['get', '--raw', `${BASE}/networkpolicies?watch=1&timeoutSeconds=1`]);
    expect(
      watch
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual(['ADDED', 'BOOKMARK']);
  });

  it('accepts a ServiceAccount token with RBAC (TokenReview + SubjectAccessReview), 403 without, 401 with none', async () => {
    const agentToken = (await kube.kubectl(['create', 'token', 'antrea-agent', '-n', 'kube-system'])).trim();
    const ok = await call(`${BASE}/networkpolicies`, agentToken);
    expect(ok.status).toBe(200);
    expect(seen.at(-1)!.user).toMatchObject({
      username: 'system:serviceaccount:kube-system:antrea-agent',
      authenticatedBy: 'token',
    });
    expect(seen.at(-1)!.user.nodeName).toBeUndefined();

    const noRbacToken = (await kube.kubectl(['create', 'token', 'no-rbac', '-n', 'kube-system'])).trim();
    const denied = await call(`${BASE}/networkpolicies`, noRbacToken);
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    // Worded exactly as kube-apiserver's own refusal of the same request (it authorizes aggregated
    // paths itself before proxying), so users and tools see one message whoever refused.
    const refusedByKube = await kubeCall(`${BASE}/networkpolicies`, noRbacToken);
    expect(refusedByKube.status).toBe(403);
    expect(JSON.parse(denied.body).message).toBe(JSON.parse(refusedByKube.body).message);
    expect(JSON.parse(denied.body).details).toEqual(JSON.parse(refusedByKube.body).details);
    // The same for a non-resource path (the agent API's kind of refusal).
    const deniedPath = await call('/ovsflows', noRbacToken);
    const pathRefusedByKube = await kubeCall('/ovsflows', noRbacToken);
    expect([deniedPath.status, pathRefusedByKube.status]).toEqual([403, 403]);
    expect(JSON.parse(deniedPath.body).message).toBe(JSON.parse(pathRefusedByKube.body).message);
    // Discovery is open to every authenticated user through the bootstrap system:discovery role.
    expect((await call(BASE, noRbacToken)).status).toBe(200);

    const anonymous = await call(`${BASE}/networkpolicies`);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect((await call(`${BASE}/networkpolicies`, `${agentToken}x`)).status).toBe(401);
  });

  it('exposes the Node of a Node-bound token on the request identity', async () => {
    const token = (
      await kube.kubectl([
        'create',
        'token',
        'antrea-agent',
        '-n',
        'kube-system',
        '--bound-object-kind=Node',
        '--bound-object-name=node-a',
      ])
    ).trim();
    const r = await call(
      `${BASE}/networkpolicies?watch=1&timeoutSeconds=1&fieldSelector=nodeName%3Dnode-a`,
      token,
    );
    expect(r.status).toBe(200);
    const req = seen.at(-1)!;
    expect(req.info.verb).toBe('watch');
    expect(req.user.nodeName).toBe('node-a');
    expect(req.user.extra['authentication.kubernetes.io/node-name']).toEqual(['node-a']);
    expect(req.options.fieldSelector.equality('nodeName')).toBe('node-a');
  });

  it('stages a new CA, republishes the bundle, then serves from it while the aggregator follows', async () => {
    const before = await call('/livez');
    const oldCa = parseCertBundle(certs.current().caBundlePem)[0]!;
    // Step 1: the CA could not cover another full certificate, so the next CA joins the bundle.
    expect(certs.checkRotation()).toBe(true);
    const staged = parseCertBundle(certs.current().caBundlePem);
    expect(staged).toHaveLength(2);
    expect(staged[0]!.fingerprint256).toBe(oldCa.fingerprint256);
    const antreaCa = async () =>
      JSON.parse(await kube.kubectl(['get', 'configmap', 'antrea-ca', '-n', 'kube-system', '-o', 'json']))
        .data['ca.crt'];
    await waitFor(
      'bundle with the next CA published',
      async () => (await antreaCa()) === certs.current().caBundlePem,
      30_000,
      200,
    );
    const svc = JSON.parse(
      await kube.kubectl(['get', 'apiservice', 'v1beta2.controlplane.antrea.io', '-o', 'json']),
    );
    expect(parseCertBundle(Buffer.from(svc.spec.caBundle, 'base64').toString())).toHaveLength(2);

    // Step 2: the serving certificate is due; it is now signed by the next CA.
    clock.set(Date.now());
    expect(certs.checkRotation()).toBe(true);
    const after = await call('/livez');
    expect(after.serial).not.toBe(before.serial);
    const served = new X509Certificate(certs.current().certPem);
    expect(after.serial).toBe(served.serialNumber);
    expect(served.checkIssued(staged[1]!)).toBe(true);
    await waitFor(
      'rotated bundle published',
      async () => (await antreaCa()) === certs.current().caBundlePem,
      30_000,
      200,
    );
    // Idle connections were closed on rotation, so the aggregator verifies the new certificate.
    const list = JSON.parse(await getRawWhenServed(kube, `${BASE}/networkpolicies`));
    expect(list.kind).toBe('NetworkPolicyList');
  });
});
