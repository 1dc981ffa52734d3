import { createServer } from 'node:http';
import { listenAsKubeApi } from '@antrea-ts/harness';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crdInformer, restartInformerOnError } from './crd-informer.js';
import { CRD_KINDS } from './kinds.js';

/** An API server that lists one object and refuses the first watch (500), holding later ones open. */
function fakeApiServer() {
  const requests: string[] = [];
  let watches = 0;
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (new URL(req.url ?? '', 'http://x').searchParams.get('watch') === 'true') {
      if (++watches === 1) res.writeHead(500).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).write('');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        apiVersion: 'crd.antrea.io/v1alpha2',
        kind: 'ExternalEntityList',
        metadata: { resourceVersion: '1' },
        items: [{ metadata: { name: 'ee-1', namespace: 'ns', resourceVersion: '1' } }],
      }),
    );
  });
  return { server, requests };
}

describe('crdInformer', () => {
  const api = fakeApiServer();
  let kc: KubeConfig;

  beforeAll(async () => {
    kc = await listenAsKubeApi(api.server);
  });
  afterAll(async () => {
    api.server.closeAllConnections();
    await new Promise((r) => api.server.close(r));
  });

  it("lists and watches the kind's cluster-wide path at its version, and starts again after a failed watch", async () => {
    const informer = crdInformer<{ metadata: { name: string } }>(kc, CRD_KINDS.ExternalEntity);
    let active = true;
    const errors: unknown[] = [];
    restartInformerOnError(informer, { active: () => active, onError: (e) => errors.push(e), delayMs: 10 });
    await informer.start();
    // The first watch is refused: the informer stops, reports it, and is started again (it keeps its
    // resourceVersion, so it watches again without listing).
    await vi.waitFor(() => expect(api.requests).toHaveLength(3), { timeout: 10_000 });
    expect(errors).toHaveLength(1);
    expect(api.requests.map((r) => [r.split('?')[0], r.includes('watch=true')])).toEqual([
      ['/apis/crd.antrea.io/v1alpha2/externalentities', false],
      ['/apis/crd.antrea.io/v1alpha2/externalentities', true],
      ['/apis/crd.antrea.io/v1alpha2/externalentities', true],
    ]);
    expect(informer.list().map((o) => o.metadata.name)).toEqual(['ee-1']);
    active = false;
    await informer.stop();
  });
});
