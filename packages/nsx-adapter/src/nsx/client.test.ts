import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_ADMIN,
  generateClientCertificate,
  generateSelfSignedTls,
  memoryPersistence,
  NsxSimServer,
  SimStore,
} from '@antrea-ts/nsx-sim';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NsxRequestError } from '../errors.js';
import { type HttpMethod, listAll, NsxClient, type NsxTransport, putWithRevision } from './client.js';

// The REST client against the simulator on loopback: real sockets, NSX error bodies, paging, TLS.

const logger = pino({ level: 'silent' });
const G = '/policy/api/v1/infra/domains/default/groups';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsx-client-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function plainSim(): Promise<{ server: NsxSimServer; url: string }> {
  const server = new NsxSimServer({
    logger,
    store: new SimStore(memoryPersistence, logger),
    port: 0,
    auth: false,
  });
  return { server, url: await server.start() };
}

describe('NsxClient', () => {
  it('pages through lists with cursor and maps NSX error bodies to codes', async () => {
    const { server, url } = await plainSim();
    const c = new NsxClient({ baseUrl: url });
    try {
      for (let i = 0; i < 7; i++) await c.request('PATCH', `${G}/g${i}`, { display_name: `g${i}` });
      const all = await listAll<{ id: string }>(c, G, {}, 3);
      expect(all.map((g) => g.id)).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6']);

      const missing = await c.request('GET', `${G}/nope`).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(NsxRequestError);
      expect(missing).toMatchObject({ code: 'NSX_NOT_FOUND', status: 404, errorCode: 600 });

      const noRev = await c.request('PUT', `${G}/g0`, { display_name: 'x' }).catch((e: unknown) => e);
      expect(noRev).toMatchObject({ code: 'NSX_REQUEST_FAILED', status: 400, errorCode: 500127 });
      const stale = await c
        .request('PUT', `${G}/g0`, { display_name: 'x', _revision: 42 })
        .catch((e: unknown) => e);
      expect(stale).toMatchObject({ code: 'NSX_STALE_REVISION', status: 412 });

      // _revision handling: read, send, retry once on a concurrent write.
      const updated = await putWithRevision<{ _revision: number; display_name: string }>(c, `${G}/g0`, {
        display_name: 'renamed',
      });
      expect(updated).toMatchObject({ display_name: 'renamed', _revision: 1 });
      const created = await putWithRevision<{ _revision: number }>(c, `${G}/fresh`, {
        display_name: 'fresh',
      });
      expect(created._revision).toBe(0);
      let raced = false;
      const racing: NsxTransport = {
        request: async <T>(method: HttpMethod, path: string, body?: unknown): Promise<T> => {
          if (method === 'PUT' && !raced) {
            raced = true;
            await c.request('PATCH', path, { description: 'someone else' });
          }
          return c.request<T>(method, path, body);
        },
      };
      const won = await putWithRevision<{ display_name: string; _revision: number }>(racing, `${G}/g1`, {
        display_name: 'mine',
      });
      expect(won).toMatchObject({ display_name: 'mine', _revision: 2 });
    } finally {
      c.close();
      await server.stop();
    }
  });

  it('reports an unreachable manager as NSX_UNREACHABLE', async () => {
    const { server, url } = await plainSim();
    await server.stop();
    const c = new NsxClient({ baseUrl: url, timeoutMs: 2000 });
    await expect(c.request('GET', G)).rejects.toMatchObject({ code: 'NSX_UNREACHABLE' });
    c.close();
  });

  it('authenticates with a principal identity client certificate over TLS', async () => {
    const tls = await generateSelfSignedTls(join(dir, 'server'), ['localhost'], ['127.0.0.1']);
    const pi = await generateClientCertificate(join(dir, 'pi'), 'kind-a');
    const server = new NsxSimServer({
      logger,
      store: new SimStore(memoryPersistence, logger),
      port: 0,
      auth: DEFAULT_ADMIN,
      tls: { key: tls.key, cert: tls.cert },
    });
    const url = await server.start();
    const admin = new NsxClient({
      baseUrl: url,
      ca: tls.caCert,
      basicAuth: { user: 'admin', password: 'Admin!23Admin' },
    });
    const asPi = new NsxClient({ baseUrl: url, ca: tls.caCert, cert: pi.cert, key: pi.key });
    const anonymous = new NsxClient({ baseUrl: url, ca: tls.caCert });
    const untrusted = new NsxClient({ baseUrl: url });
    try {
      await admin.request('POST', '/api/v1/trust-management/principal-identities/with-certificate', {
        name: 'kind-a',
        node_id: 'kind-a',
        role: 'enterprise_admin',
        certificate_pem: pi.cert,
      });
      await asPi.request('PATCH', `${G}/by-pi`, { display_name: 'pi' });
      expect(await asPi.request('GET', `${G}/by-pi`)).toMatchObject({ _create_user: 'kind-a' });
      await expect(anonymous.request('GET', G)).rejects.toMatchObject({
        code: 'NSX_AUTH_FAILED',
        status: 403,
      });
      // The simulator's CA is not trusted by default.
      await expect(untrusted.request('GET', G)).rejects.toMatchObject({ code: 'NSX_UNREACHABLE' });
    } finally {
      for (const c of [admin, asPi, anonymous, untrusted]) c.close();
      await server.stop();
    }
  });
});
