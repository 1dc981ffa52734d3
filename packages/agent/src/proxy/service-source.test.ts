import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { InformerServiceSource } from './service-source.js';

/** A kube-apiserver stand-in: empty lists (the first Service list fails), watches that stay open. */
function fakeApiserver(): Promise<{ server: Server; url: string; serviceLists: () => number }> {
  let serviceLists = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return; // open until the informer stops
    }
    if (url.pathname === '/api/v1/services' && serviceLists++ === 0) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500 }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [] }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        serviceLists: () => serviceLists,
      }),
    ),
  );
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

describe('InformerServiceSource', () => {
  it('announces synced() only once both lists were read, after a failed list is retried', async () => {
    const api = await fakeApiserver();
    cleanup.push(
      () =>
        new Promise<void>((r) => {
          api.server.closeAllConnections();
          api.server.close(() => r());
        }),
    );
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const source = new InformerServiceSource(kc, pino({ level: 'silent' }));
    cleanup.push(() => source.stop());
    let synced = 0;
    await source.start({
      upsertService: () => undefined,
      removeService: () => undefined,
      upsertSlice: () => undefined,
      removeSlice: () => undefined,
      synced: () => synced++,
    });
    expect(api.serviceLists()).toBe(1);
    expect(synced).toBe(0);
    // The informer retries the Service list a second later.
    const deadline = Date.now() + 5000;
    while (synced === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(api.serviceLists()).toBe(2);
    expect(synced).toBe(1);
  }, 15_000);
});
