import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import {
  apiServiceObject,
  type ExtensionServerSetup,
  getRawWhenServed,
  makeTempDir,
  startExtensionServerSetup,
  type TempDir,
  TestPki,
} from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The aggregator refuses loopback endpoints: the extension server listens on a veth address of its
// own (see startExtensionServerSetup).
const EXTENSION_IP = '198.18.250.1';

describe('aggregation layer', () => {
  let setup: ExtensionServerSetup;
  let server: Server;
  let tmp: TempDir;
  const seen: { user?: string; groups?: string; clientCertIssuer?: string }[] = [];

  beforeAll(async () => {
    setup = await startExtensionServerSetup({ ip: EXTENSION_IP });
    tmp = makeTempDir('aggregation');
    const pki = new TestPki(tmp.path);
    const ca = await pki.createCa('ext-ca', 'extension-ca');
    const serving = await pki.issue(ca, {
      name: 'ext',
      commonName: 'probe-apiserver',
      usage: 'server',
      dnsNames: ['probe-apiserver.kube-system.svc'],
    });

    server = createServer(
      {
        cert: readFileSync(serving.cert),
        key: readFileSync(serving.key),
        ca: readFileSync(setup.kube.frontProxyCa.cert),
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

    await setup.expose({ name: 'probe-apiserver', namespace: 'kube-system', port }, [
      apiServiceObject({
        group: 'probe.antrea-ts.io',
        version: 'v1',
        service: { name: 'probe-apiserver', namespace: 'kube-system' },
        caBundlePem: readFileSync(ca.cert, 'utf8'),
      }),
    ]);
  });

  afterAll(async () => {
    server?.close();
    await setup?.stop();
    tmp?.remove();
  });

  it('routes an APIService to our server with the front-proxy identity of the caller', async () => {
    const body = await getRawWhenServed(setup.kube, '/apis/probe.antrea-ts.io/v1/things');
    expect(JSON.parse(body).kind).toBe('ThingList');
    const call = seen.find((s) => s.user === 'admin');
    expect(call).toBeDefined();
    expect(call?.groups).toContain('system:masters');
    expect(call?.clientCertIssuer).toBe('antrea-ts-front-proxy-ca');
  });
});
