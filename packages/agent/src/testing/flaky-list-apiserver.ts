import { createServer, type Server } from 'node:http';
import { listenAsKubeApi } from '@antrea-ts/harness';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * A kube-apiserver stand-in for informer tests: every list is empty except that the first list of
 * `failingPath` answers 500; watches stay open until the client goes.
 */
export async function flakyListApiserver(
  failingPath: string,
): Promise<{ kubeConfig: KubeConfig; lists: () => number; close: () => Promise<void> }> {
  let lists = 0;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return;
    }
    if (url.pathname === failingPath && lists++ === 0) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500 }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ metadata: { resourceVersion: '1' }, items: [] }));
  });
  const kubeConfig = await listenAsKubeApi(server);
  return {
    kubeConfig,
    lists: () => lists,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls until `done()` or 5 s pass (the informers retry a failed list after 1 s). */
export async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}
