import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import {
  createVethPair,
  type KubeCluster,
  makeTempDir,
  run,
  serviceWithEndpoints,
  startKube,
  type TempDir,
  TestPki,
  tryRun,
  uniqueTag,
} from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The aggregator refuses loopback endpoints, so the extension server listens on an address of a
// veth of our own (this kernel has no dummy links), in the 198.18.0.0/15 range reserved for network
// tests.
const EXTENSION_IP = '198.18.250.1';

describe('aggregation layer', () => {
  let kube: KubeCluster;
  let server: Server;
  let tmp: TempDir;
  const link = `ats${uniqueTag()}`;
  const seen: { user?: string; groups?: string; clientCertIssuer?: string }[] = [];

  beforeAll(async () => {
    kube = await startKube();
    tmp = makeTempDir('aggregation');
    const pki = new TestPki(tmp.path);
    const ca = await pki.createCa('ext-ca', 'extension-ca');
    const serving = await pki.issue(ca, {
      name: 'ext',
      commonName: 'probe-apiserver',
      usage: 'server',
      dnsNames: ['probe-apiserver.kube-system.svc'],
    });
    await createVethPair({ name: link }, { name: `${link}p` });
    await run(['ip', 'addr', 'add', `${EXTENSION_IP}/32`, 'dev', link]);

    server = createServer(
      {
        cert: readFileSync(serving.cert),
        key: readFileSync(serving.key),
        ca: readFileSync(kube.frontProxyCa.cert),
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        seen.push({
          user: req.headers['x-remote-user'] as string | undefined,
          groups: req.headers['x-remote-group'] as string | undefined,
          clientCertIssuer: String(peer?.issuer?.CN),
        });
        res.setHeader('content-type', 'application/json');
        if (req.url?.startsWith('/apis/probe.antrea-ts.io/v1/things')) {
          res.end(JSON.stringify({ kind: 'ThingList', apiVersion: 'probe.antrea-ts.io/v1', items: [] }));
        } else {
          res.end(
            JSON.stringify({
              kind: 'APIResourceList',
              apiVersion: 'v1',
              groupVersion: 'probe.antrea-ts.io/v1',
              resources: [{ name: 'things', namespaced: false, kind: 'Thing', verbs: ['list'] }],
            }),
          );
        }
      },
    );
    await new Promise<void>((resolve) => server.listen(0, EXTENSION_IP, resolve));
    const port = (server.address() as { port: number }).port;

    const objects = [
      ...serviceWithEndpoints({ name: 'probe-apiserver', namespace: 'kube-system', ip: EXTENSION_IP, port }),
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.probe.antrea-ts.io' },
        spec: {
          group: 'probe.antrea-ts.io',
          version: 'v1',
          groupPriorityMinimum: 100,
          versionPriority: 100,
          service: { name: 'probe-apiserver', namespace: 'kube-system', port: 443 },
          caBundle: readFileSync(ca.cert).toString('base64'),
        },
      },
    ];
    await kube.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
    });
  });

  afterAll(async () => {
    server?.close();
    await kube?.stop();
    await tryRun(['ip', 'link', 'delete', link]);
    tmp?.remove();
  });

  it('routes an APIService to our server with the front-proxy identity of the caller', async () => {
    const deadline = Date.now() + 60_000;
    let body = '';
    while (Date.now() < deadline) {
      try {
        body = await kube.kubectl(['get', '--raw', '/apis/probe.antrea-ts.io/v1/things']);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    expect(JSON.parse(body).kind).toBe('ThingList');
    const call = seen.find((s) => s.user === 'admin');
    expect(call).toBeDefined();
    expect(call?.groups).toContain('system:masters');
    expect(call?.clientCertIssuer).toBe('antrea-ts-front-proxy-ca');
  });
});
