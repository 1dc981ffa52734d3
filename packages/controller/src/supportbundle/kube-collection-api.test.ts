import { createServer, type ServerResponse } from 'node:http';
import { listenAsKubeApi } from '@antrea-ts/harness';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KubeCollectionApi } from './kube-collection-api.js';

const PATH = '/apis/crd.antrea.io/v1alpha1/supportbundlecollections';

/** An API server listing no collections and holding each watch open for the test to write to. */
function fakeApiServer() {
  const requests: string[] = [];
  const watches: ServerResponse[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (new URL(req.url ?? '', 'http://x').searchParams.get('watch') === 'true') {
      res.writeHead(200).write('');
      watches.push(res);
      return;
    }
    res.end(
      JSON.stringify({ kind: 'SupportBundleCollectionList', metadata: { resourceVersion: '1' }, items: [] }),
    );
  });
  return { server, requests, watches };
}

const event = (type: string, name: string, rv: string) =>
  `${JSON.stringify({ type, object: { kind: 'SupportBundleCollection', metadata: { name, resourceVersion: rv } } })}\n`;

describe('KubeCollectionApi.watchCollections', () => {
  const api = fakeApiServer();
  let kc: KubeConfig;

  beforeAll(async () => {
    kc = await listenAsKubeApi(api.server);
  });
  afterAll(async () => {
    api.server.closeAllConnections();
    await new Promise((r) => api.server.close(r));
  });

  it('calls changed on every CR event of the crd.antrea.io watch, and stops watching when told', async () => {
    let changes = 0;
    const failures: unknown[] = [];
    const stop = new KubeCollectionApi(kc).watchCollections(
      () => changes++,
      (err) => failures.push(err),
    );
    await vi.waitFor(() => expect(api.watches).toHaveLength(1), { timeout: 5_000 });
    expect(api.requests.map((r) => [r.split('?')[0], r.includes('watch=true')])).toEqual([
      [PATH, false],
      [PATH, true],
    ]);
    api.watches[0]!.write(event('ADDED', 'c1', '2'));
    api.watches[0]!.write(event('MODIFIED', 'c1', '3'));
    api.watches[0]!.write(event('DELETED', 'c1', '4'));
    await vi.waitFor(() => expect(changes).toBe(3), { timeout: 5_000 });
    await stop();
    // A stopped watch is neither reported as failed nor started again.
    await new Promise((r) => setTimeout(r, 1_200));
    expect(api.requests).toHaveLength(2);
    expect(failures).toEqual([]);
  });
});
