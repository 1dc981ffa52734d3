import { X509Certificate } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { connect as connectHttp2 } from 'node:http2';
import { request } from 'node:https';
import { setImmediate as tick } from 'node:timers/promises';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthenticationConfig, EMPTY_AUTHENTICATION_CONFIG } from './authn/client-cert.js';
import type { TokenReviewResult } from './authn/token-authenticator.js';
import { SelfSignedCertManager } from './certs/cert-manager.js';
import { type CaMaterial, createCa, generateKeyPair } from './certs/self-signed.js';
import { FakeClock } from './clock.js';
import { type ApiCodec, type ApiObject, jsonCodec } from './codec.js';
import { type ApiRequest, ResourceRegistry, type WatchSink } from './registry.js';
import { ApiServer } from './server.js';
import { ApiError } from './status.js';
import { FakeAccessReviewer, FakeTokenReviewer } from './testing/fakes.js';
import { issueCertificate } from './x509/certificate.js';

const logger = pino({ level: 'silent' });
const GROUP = 'controlplane.antrea.io';
const BASE = `/apis/${GROUP}/v1beta2`;

interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
  serial: string;
}

function clientCert(ca: CaMaterial, commonName: string): { cert: string; key: string } {
  const keys = generateKeyPair();
  const now = Date.now();
  const cert = issueCertificate(
    {
      serial: Uint8Array.of(7),
      subject: { commonName },
      notBefore: now - 10 * 3_600_000,
      notAfter: now + 3_600_000,
      publicKey: keys.publicKey,
      isCa: false,
      extKeyUsage: ['clientAuth'],
    },
    { subject: { commonName: ca.commonName }, privateKey: ca.privateKey, publicKey: ca.publicKey },
  );
  return { cert, key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

describe('ApiServer', () => {
  // Nine hours behind: the rotation test moves it to the present, so the new certificate is valid now.
  const clock = new FakeClock(Date.now() - 9 * 3_600_000);
  const tokens = new FakeTokenReviewer(
    new Map<string, TokenReviewResult['user']>([
      [
        'agent-token',
        {
          username: 'system:serviceaccount:kube-system:antrea-agent',
          groups: ['agents'],
          extra: { 'authentication.kubernetes.io/node-name': ['node-a'] },
        },
      ],
      ['norbac-token', { username: 'nobody', groups: [], extra: {} }],
    ]),
  );
  const access = new FakeAccessReviewer((u) => u.username !== 'nobody');
  const certs = new SelfSignedCertManager({
    logger,
    clock,
    dnsNames: ['antrea'],
    validityMs: 10 * 3_600_000,
    renewBeforeMs: 3_600_000,
  });
  const frontProxyCa = createCa('front-proxy', Date.now() - 9 * 3_600_000, 20 * 3_600_000);
  const otherCa = createCa('other', Date.now() - 9 * 3_600_000, 20 * 3_600_000);
  const authnConfig: AuthenticationConfig = {
    ...EMPTY_AUTHENTICATION_CONFIG,
    requestHeaderCAs: [new X509Certificate(frontProxyCa.certPem)],
    allowedNames: ['front-proxy-client'],
    usernameHeaders: ['X-Remote-User'],
    groupHeaders: ['X-Remote-Group'],
    extraHeaderPrefixes: ['X-Remote-Extra-'],
  };
  const metricsRegistry = new Registry();
  const registry = new ResourceRegistry();
  const seen: ApiRequest[] = [];
  const sinks: WatchSink[] = [];
  const item = {
    apiVersion: `${GROUP}/v1beta2`,
    kind: 'NetworkPolicy',
    metadata: { name: 'np1', resourceVersion: '5' },
  };
  registry.register(GROUP, 'v1beta2', {
    name: 'networkpolicies',
    kind: 'NetworkPolicy',
    namespaced: false,
    verbs: ['get', 'list', 'watch'],
    subresources: [
      {
        name: 'status',
        kind: 'NetworkPolicyStatus',
        verbs: ['create'],
        handler: { create: (r) => ({ kind: 'NetworkPolicyStatus', echo: r.body }) },
      },
    ],
    handler: {
      list(req) {
        seen.push(req);
        if (req.options.resourceVersion === 'ancient') throw ApiError.expired();
        return {
          apiVersion: `${GROUP}/v1beta2`,
          kind: 'NetworkPolicyList',
          metadata: { resourceVersion: '5' },
          items: [item],
        };
      },
      get(req) {
        if (req.info.name !== 'np1')
          throw ApiError.notFound({ group: GROUP, resource: 'networkpolicies' }, req.info.name);
        return item;
      },
      watch(req, sink) {
        seen.push(req);
        if (req.options.resourceVersion === 'ancient') throw ApiError.expired();
        if (req.options.resourceVersion === 'silent') {
          sinks.push(sink);
          return undefined;
        }
        if (req.options.resourceVersion === 'late') {
          sink.send('ADDED', item);
          throw ApiError.expired();
        }
        sinks.push(sink);
        sink.send('ADDED', item);
        sink.send('BOOKMARK', {
          kind: 'NetworkPolicy',
          apiVersion: `${GROUP}/v1beta2`,
          metadata: { resourceVersion: '5' },
        });
        return { bookmark: () => ({ kind: 'NetworkPolicy', metadata: { resourceVersion: '6' } }) };
      },
    },
  });
  registry.declareGroupVersion('stats.antrea.io', 'v1alpha1');
  let encodes = 0;
  const countingJson: ApiCodec = {
    ...jsonCodec,
    encode: (o) => {
      encodes++;
      return jsonCodec.encode(o);
    },
  };
  const server = new ApiServer({
    codecs: [countingJson],
    logger,
    registry,
    certificates: certs,
    tokenReviewer: tokens,
    accessReviewer: access,
    metricsRegistry,
    authenticationConfig: { current: () => authnConfig, onChange: () => () => {} },
    clock,
    host: '127.0.0.1',
    port: 0,
    watch: { limits: { maxQueuedBytes: 1 << 20 }, tickMs: 3_600_000 },
    maxBodyBytes: 1024,
    endpoints: new Map([
      [
        '/validate/echo',
        (r) => ({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify({ method: r.method, contentType: r.contentType, body: r.body.toString() }),
        }),
      ],
    ]),
  });
  server.readyz.add('store-synced', () => ready);
  let ready = true;

  function call(
    path: string,
    opts: {
      token?: string;
      accept?: string;
      method?: string;
      body?: string;
      cert?: { cert: string; key: string };
      headers?: Record<string, string>;
    } = {},
  ): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.address.port,
          path,
          method: opts.method ?? 'GET',
          servername: 'antrea',
          ca: certs.current().caBundlePem,
          agent: false,
          headers: {
            ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
            ...(opts.accept ? { accept: opts.accept } : {}),
            ...(opts.body ? { 'content-type': 'application/json' } : {}),
            ...opts.headers,
          },
          ...(opts.cert ? opts.cert : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          const serial =
            (res.socket as import('node:tls').TLSSocket).getPeerX509Certificate()?.serialNumber ?? '';
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
              serial,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('serves plain endpoints without authentication, with the whole body', async () => {
    const r = await call('/validate/echo', { method: 'POST', body: '{"a":1}' });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ method: 'POST', contentType: 'application/json', body: '{"a":1}' });
    // Only the exact path: anything else still needs a token.
    expect((await call('/validate/echo/x', { method: 'POST', body: '{}' })).status).toBe(401);
  });

  it('answers 413 for a body over maxBodyBytes, to plain endpoints and API requests alike', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(2000) });
    const plain = await call('/validate/echo', { method: 'POST', body: big });
    expect(plain.status).toBe(413);
    expect(JSON.parse(plain.body)).toMatchObject({
      kind: 'Status',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
    const api = await call(`${BASE}/networkpolicies/np1/status`, {
      token: 'agent-token',
      method: 'POST',
      body: big,
    });
    expect(api.status).toBe(413);
    expect(JSON.parse(api.body)).toMatchObject({ reason: 'RequestEntityTooLarge', code: 413 });
  });

  it('answers 401 with an uninformative Status when there is no or a bad token', async () => {
    for (const token of [undefined, 'forged']) {
      const r = await call(`${BASE}/networkpolicies`, token ? { token } : {});
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toContain('Bearer');
      expect(JSON.parse(r.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
  });

  it('answers 401 when TokenReview itself fails, and does not cache the failure', async () => {
    tokens.failNext = true;
    expect((await call(`${BASE}/networkpolicies`, { token: 'fresh-token' })).status).toBe(401);
    tokens.tokens.set('fresh-token', { username: 'fresh', groups: [] });
    expect((await call(`${BASE}/networkpolicies`, { token: 'fresh-token' })).status).toBe(200);
  });

  it('answers 403 without the reviewer reason for an authenticated user without access', async () => {
    const r = await call(`${BASE}/networkpolicies`, { token: 'norbac-token' });
    expect(r.status).toBe(403);
    const status = JSON.parse(r.body);
    expect(status.reason).toBe('Forbidden');
    expect(status.message).toContain('User "nobody" cannot list');
    expect(r.body).not.toContain('no RBAC rule');
    expect(r.body).not.toContain('np1');
  });

  it('serves a list to an authorized token and tells the handler the bound Node', async () => {
    const r = await call(`${BASE}/networkpolicies?fieldSelector=nodeName%3Dnode-a&labelSelector=app%3Dweb`, {
      token: 'agent-token',
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body).items[0].metadata.name).toBe('np1');
    const req = seen.at(-1)!;
    expect(req.user).toMatchObject({
      username: 'system:serviceaccount:kube-system:antrea-agent',
      nodeName: 'node-a',
      authenticatedBy: 'token',
    });
    expect(req.options.fieldSelector.equality('nodeName')).toBe('node-a');
    expect(req.options.labelSelector.matches({ app: 'web' })).toBe(true);
  });

  it('serves discovery from the registry', async () => {
    const groups = JSON.parse((await call('/apis', { token: 'agent-token' })).body);
    expect(groups.kind).toBe('APIGroupList');
    expect(groups.groups.map((g: { name: string }) => g.name)).toEqual([GROUP, 'stats.antrea.io']);
    const group = JSON.parse((await call(`/apis/${GROUP}`, { token: 'agent-token' })).body);
    expect(group.preferredVersion).toEqual({ groupVersion: `${GROUP}/v1beta2`, version: 'v1beta2' });
    const resources = JSON.parse(
      (
        await call(BASE, {
          token: 'agent-token',
          accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
        })
      ).body,
    );
    expect(resources).toMatchObject({ kind: 'APIResourceList', groupVersion: `${GROUP}/v1beta2` });
    expect(resources.resources).toEqual([
      {
        name: 'networkpolicies',
        singularName: 'networkpolicy',
        namespaced: false,
        kind: 'NetworkPolicy',
        verbs: ['get', 'list', 'watch'],
      },
      {
        name: 'networkpolicies/status',
        singularName: '',
        namespaced: false,
        kind: 'NetworkPolicyStatus',
        verbs: ['create'],
      },
    ]);
    expect((await call('/apis/nope.io', { token: 'agent-token' })).status).toBe(404);
  });

  it('maps routing and handler errors to Kubernetes Status codes', async () => {
    const t = { token: 'agent-token' };
    const expectStatus = async (
      path: string,
      code: number,
      reason: string,
      extra: Parameters<typeof call>[1] = {},
    ) => {
      const r = await call(path, { ...t, ...extra });
      expect(r.status, path).toBe(code);
      expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', code, reason });
    };
    await expectStatus(`${BASE}/networkpolicies/missing`, 404, 'NotFound');
    await expectStatus(`${BASE}/nosuchthings`, 404, 'NotFound');
    await expectStatus(`${BASE}/namespaces/ns1/networkpolicies`, 404, 'NotFound');
    await expectStatus(`${BASE}/networkpolicies`, 405, 'MethodNotAllowed', { method: 'POST', body: '{}' });
    await expectStatus(`${BASE}/networkpolicies`, 406, 'NotAcceptable', { accept: 'text/html' });
    await expectStatus(`${BASE}/networkpolicies?labelSelector=a%20in%20()`, 400, 'BadRequest');
    await expectStatus(`${BASE}/networkpolicies?timeoutSeconds=-1`, 400, 'BadRequest');
    await expectStatus(`${BASE}/networkpolicies?resourceVersion=ancient`, 410, 'Expired');
    await expectStatus(`${BASE}/networkpolicies?watch=1&resourceVersion=ancient`, 410, 'Expired');
    // A watch that fails after it started ends with an ERROR event carrying the Status.
    const late = await call(`${BASE}/networkpolicies?watch=1&resourceVersion=late`, t);
    expect(late.status).toBe(200);
    const events = late.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ERROR']);
    expect(events[1].object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(server.watchCount).toBe(0);
    expect(await metricsRegistry.getSingleMetricAsString('apiserver_registered_watchers')).toMatch(
      /resource="networkpolicies"} 0/,
    );
    const created = await call(`${BASE}/networkpolicies/np1/status`, {
      ...t,
      method: 'POST',
      body: '{"nodeName":"node-a"}',
    });
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body).echo).toEqual({ nodeName: 'node-a' });
  });

  it('streams a watch as JSON frames, encoding each object once for all watchers', async () => {
    const frames: ApiObject[][] = [[], []];
    const done: Promise<void>[] = [];
    const responses: IncomingMessage[] = [];
    for (const i of [0, 1]) {
      done.push(
        new Promise((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port: server.address.port,
              path: `${BASE}/networkpolicies?watch=true&timeoutSeconds=300&allowWatchBookmarks=true`,
              servername: 'antrea',
              ca: certs.current().caBundlePem,
              agent: false,
              headers: { authorization: 'Bearer agent-token' },
            },
            (res) => {
              responses.push(res);
              expect(res.headers['content-type']).toBe('application/json;stream=watch');
              let buf = '';
              res.on('data', (c: Buffer) => {
                buf += c.toString();
                const lines = buf.split('\n');
                buf = lines.pop()!;
                for (const l of lines) frames[i]!.push(JSON.parse(l));
              });
              res.on('end', () => resolve());
            },
          );
          req.on('error', reject);
          req.end();
        }),
      );
    }
    const deadline = Date.now() + 5000;
    while ((frames[0]!.length < 2 || frames[1]!.length < 2) && Date.now() < deadline) await tick();
    expect(server.watchCount).toBe(2);
    const change = { ...item, metadata: { name: 'np1', resourceVersion: '7' } };
    const encodesBefore = encodes;
    for (const s of sinks.slice(-2)) s.send('MODIFIED', change);
    expect(encodes - encodesBefore).toBe(1);
    // A quiet watch that asked for bookmarks gets one from the handler's bookmark().
    clock.advance(60_000);
    server.tick();
    while ((frames[0]!.length < 4 || frames[1]!.length < 4) && Date.now() < deadline) await tick();
    for (const s of sinks.slice(-2)) s.close();
    await Promise.all(done);
    for (const f of frames) {
      expect(f.map((e) => e['type'])).toEqual(['ADDED', 'BOOKMARK', 'MODIFIED', 'BOOKMARK']);
      expect((f[2]!['object'] as { metadata: { resourceVersion: string } }).metadata.resourceVersion).toBe(
        '7',
      );
    }
    expect(server.watchCount).toBe(0);
    const metrics = await metricsRegistry.getSingleMetricAsString('antrea_apiserver_watch_events_sent_total');
    expect(metrics).toContain('resource="networkpolicies"');
  });

  it('disconnects a watcher that stops reading instead of buffering for it', async () => {
    const before = sinks.length;
    let response: IncomingMessage | undefined;
    const closed = new Promise<void>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.address.port,
          path: `${BASE}/networkpolicies?watch=true`,
          servername: 'antrea',
          ca: certs.current().caBundlePem,
          agent: false,
          headers: { authorization: 'Bearer agent-token' },
        },
        (res) => {
          response = res;
          res.pause(); // never reads: the kernel buffers fill, then the server's queue
          res.on('close', () => resolve());
          res.on('error', () => resolve());
        },
      );
      req.on('error', () => resolve());
      req.end();
    });
    while (sinks.length === before) await tick();
    const sink = sinks.at(-1)!;
    const big = { kind: 'NetworkPolicy', pad: 'x'.repeat(64 * 1024) };
    let sent = 0;
    // Distinct objects, as a busy store would emit; yield so the socket drains into the kernel.
    while (sent < 5000 && sink.send('MODIFIED', { ...big, n: sent })) {
      sent++;
      await tick();
    }
    expect(sink.closed).toBe(true);
    // Kernel buffers plus the 1 MiB queue limit: far fewer than the 5000 frames offered.
    expect(sent).toBeLessThan(1000);
    expect(server.watchCount).toBe(0);
    const m = await metricsRegistry.getSingleMetricAsString('antrea_apiserver_watchers_closed_total');
    expect(m).toMatch(/reason="slow"} 1/);
    // The client only notices once it reads again: the stream is cut short, not ended.
    response!.resume();
    await closed;
    expect(response!.complete).toBe(false);
  });

  it('accepts front-proxy identities only from a verified front-proxy certificate', async () => {
    const headers = { 'X-Remote-User': 'alice', 'X-Remote-Group': 'devs', 'X-Remote-Extra-Scopes': 'a' };
    const ok = await call(`${BASE}/networkpolicies`, {
      cert: clientCert(frontProxyCa, 'front-proxy-client'),
      headers,
    });
    expect(ok.status).toBe(200);
    expect(seen.at(-1)!.user).toMatchObject({
      username: 'alice',
      groups: ['devs', 'system:authenticated'],
      extra: { scopes: ['a'] },
      authenticatedBy: 'request-header',
    });
    const wrongCa = await call(`${BASE}/networkpolicies`, {
      cert: clientCert(otherCa, 'front-proxy-client'),
      headers,
    });
    expect(wrongCa.status).toBe(401);
    const wrongName = await call(`${BASE}/networkpolicies`, {
      cert: clientCert(frontProxyCa, 'someone'),
      headers,
    });
    expect(wrongName.status).toBe(401);
    // Without any certificate the headers mean nothing.
    expect((await call(`${BASE}/networkpolicies`, { headers })).status).toBe(401);
  });

  it('serves /livez and /readyz with named checks, and /metrics to authorized callers', async () => {
    expect((await call('/livez')).body).toBe('ok');
    expect((await call('/readyz?verbose')).body).toBe(
      '[+]ping ok\n[+]store-synced ok\nreadyz check passed\n',
    );
    ready = false;
    const r = await call('/readyz');
    expect(r.status).toBe(500);
    expect(r.body).toContain('[-]store-synced failed: reason withheld');
    expect((await call('/readyz/store-synced')).status).toBe(500);
    expect((await call('/readyz/ping')).status).toBe(200);
    expect((await call('/readyz?exclude=store-synced')).status).toBe(200);
    ready = true;
    expect((await call('/metrics')).status).toBe(401);
    // Made-up paths, authenticated or not, never become label values.
    for (const path of [
      '/apis/madeup.io',
      `${BASE}/madeups`,
      `${BASE}/networkpolicies/np1/madeup`,
      '/madeup',
    ]) {
      await call(path);
      await call(path, { token: 'agent-token' });
    }
    const metrics = await call('/metrics', { token: 'agent-token' });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(
      /apiserver_request_total\{verb="LIST",group="controlplane.antrea.io",version="v1beta2",resource="networkpolicies",subresource="",code="200"\} \d+/,
    );
    expect(metrics.body).toContain('antrea_apiserver_authn_cache_total{result="hit"}');
    expect(metrics.body).toContain('antrea_apiserver_watch_queue_bytes');
    expect(metrics.body).not.toContain('madeup');
    expect(metrics.body).toMatch(/resource="other",subresource="",code="404"/);
  });

  it('speaks HTTP/2: front-proxy identity, and a stalled watch is reset without hurting its neighbours', async () => {
    const session = connectHttp2(`https://127.0.0.1:${server.address.port}`, {
      ca: certs.current().caBundlePem,
      servername: 'antrea',
      ...clientCert(frontProxyCa, 'front-proxy-client'),
    });
    // A large connection window: the stalled stream must only exhaust its own stream window.
    session.on('connect', () => session.setLocalWindowSize(64 << 20));
    try {
      const get = (path: string, headers: Record<string, string>) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const s = session.request({ ':path': path, ...headers });
          let status = 0;
          let body = '';
          s.on('response', (h) => {
            status = Number(h[':status']);
          });
          s.on('data', (c: Buffer) => {
            body += c.toString();
          });
          s.on('end', () => resolve({ status, body }));
          s.on('error', reject);
          s.end();
        });
      const listed = await get(`${BASE}/networkpolicies`, {
        'x-remote-user': 'carol',
        'x-remote-group': 'ops',
      });
      expect(listed.status).toBe(200);
      expect(seen.at(-1)!.user).toMatchObject({
        username: 'carol',
        groups: ['ops', 'system:authenticated'],
        authenticatedBy: 'request-header',
      });

      // A watch with nothing to send yet still gets its 200 and headers at once.
      const silentBefore = sinks.length;
      const silent = session.request({
        ':path': `${BASE}/networkpolicies?watch=1&resourceVersion=silent`,
        'x-remote-user': 'carol',
      });
      const silentHeaders = await new Promise<Record<string, unknown>>((resolve) =>
        silent.on('response', resolve),
      );
      expect(silentHeaders[':status']).toBe(200);
      expect(silentHeaders['content-type']).toBe('application/json;stream=watch');
      while (sinks.length === silentBefore) await tick();
      sinks.at(-1)!.close();
      await new Promise((resolve) => silent.on('close', resolve));

      const before = sinks.length;
      const headers = { ':path': `${BASE}/networkpolicies?watch=1`, 'x-remote-user': 'carol' };
      const stalled = session.request(headers);
      stalled.pause();
      const stalledClosed = new Promise<void>((resolve) => {
        stalled.on('close', () => resolve());
        stalled.on('error', () => resolve());
      });
      stalled.end();
      const healthy = session.request(headers);
      let healthyFrames = 0;
      healthy.on('data', (c: Buffer) => {
        for (const b of c) if (b === 0x0a) healthyFrames++;
      });
      healthy.end();
      while (sinks.length < before + 2) await tick();
      const [a, b] = sinks.slice(-2) as [WatchSink, WatchSink];
      const big = { kind: 'NetworkPolicy', pad: 'y'.repeat(16 * 1024) };
      let sent = 0;
      // Which sink belongs to which stream is not known; keep going until one of them is dropped.
      while (sent < 2000 && !a.closed && !b.closed) {
        const obj = { ...big, n: sent };
        a.send('MODIFIED', obj);
        b.send('MODIFIED', obj);
        sent++;
        await tick();
      }
      expect(sent).toBeLessThan(2000);
      const survivor = a.closed ? b : a;
      expect(survivor.closed).toBe(false);
      stalled.resume();
      await stalledClosed;
      expect(stalled.rstCode).not.toBe(0);
      // The neighbour got every event (the initial ADDED and BOOKMARK too) on the same connection.
      const deadline = Date.now() + 5000;
      while (healthyFrames < sent + 2 && Date.now() < deadline) await tick();
      expect(healthyFrames).toBe(sent + 2);
      survivor.close();
    } finally {
      session.close();
    }
  });

  it('serves the rotated certificate on new connections', async () => {
    const before = await call('/livez');
    clock.advance(9 * 3_600_000 + 1);
    expect(certs.checkRotation()).toBe(true);
    const after = await call('/livez');
    expect(after.status).toBe(200);
    expect(after.serial).not.toBe(before.serial);
    expect(after.serial).toBe(new X509Certificate(certs.current().certPem).serialNumber);
  });

  it('ends open watches cleanly on stop, and stop is idempotent', async () => {
    const other = new ApiServer({
      logger,
      registry,
      certificates: certs,
      tokenReviewer: tokens,
      accessReviewer: access,
      metricsRegistry: new Registry(),
      host: '127.0.0.1',
      port: 0,
    });
    await other.start();
    const before = sinks.length;
    const ended = new Promise<{ complete: boolean; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: other.address.port,
          path: `${BASE}/networkpolicies?watch=1`,
          servername: 'antrea',
          ca: certs.current().caBundlePem,
          agent: false,
          headers: { authorization: 'Bearer agent-token' },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => resolve({ complete: res.complete, body }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
    while (sinks.length === before) await tick();
    expect(other.watchCount).toBe(1);
    await Promise.all([other.stop(), other.stop()]);
    await other.stop();
    const result = await ended;
    expect(result.complete).toBe(true);
    expect(result.body.trim().split('\n')).toHaveLength(2);
    expect(other.watchCount).toBe(0);
  });
});
