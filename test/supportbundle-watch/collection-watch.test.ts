// The agent's SupportBundleCollection watch against a real antrea-controller (in-process, as
// cmd/antrea-controller composes it) and a real kube-apiserver: CR -> controller span -> protobuf
// watch with fieldSelector nodeName= -> collect, upload (HTTP PUT), report -> CR status; then a
// controller restart with a collection created while it was down.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpBundleUploader, SupportBundleCollectionAgent } from '@antrea-ts/agent';
import { waitFor } from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectionCluster, collectionFor, startCollectionCluster } from './collection-cluster.js';

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const NODE = 'sbw-n1';
const UPLOAD_TOKEN = 'upload-token-sbw-4c3b2a';

let cluster: CollectionCluster;
let agent: SupportBundleCollectionAgent | undefined;
let fileServer: Server;
const uploads: { url: string; headers: IncomingHttpHeaders; bytes: number }[] = [];

const collection = (name: string, url: string) => collectionFor(name, NODE, { url }, 'BearerToken');

const conditions = (name: string) => cluster.conditions(name);

beforeAll(async () => {
  cluster = await startCollectionCluster({ node: NODE, secretData: { token: UPLOAD_TOKEN }, logger });
  fileServer = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      uploads.push({ url: req.url ?? '', headers: req.headers, bytes });
      res.end();
    });
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  agent = new SupportBundleCollectionAgent({
    node: NODE,
    connection: cluster.connection,
    collect: async () => ({ archive: Buffer.from('a bundle'), sum: 'x' }),
    uploader: new HttpBundleUploader(),
    logger,
    retryMs: 200,
  });
  agent.start();
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  await new Promise((r) => fileServer?.close(r));
  await cluster?.stop();
});

describe('SupportBundleCollection through the controller watch', () => {
  it('uploads with the Secret token and completes; after a controller restart runs only the collection created meanwhile', async () => {
    const files = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/bundles`;
    await cluster.create(collection('sbw-1', files));
    await waitFor(
      'sbw-1 Completed',
      async () => (await conditions('sbw-1'))['Completed'] === 'True',
      60_000,
      200,
    );
    expect(uploads.map((u) => [u.url, u.headers.authorization, u.bytes])).toEqual([
      [`/bundles/${NODE}_sbw-1.tar.gz`, `Bearer ${UPLOAD_TOKEN}`, 8],
    ]);
    expect(await conditions('sbw-1')).toMatchObject({ CollectionFailure: 'False' });

    // The controller goes away; a collection is created while it is down; the agent re-watches the
    // new controller and gets it in the initial state, and does not run sbw-1 again.
    await cluster.stopController();
    await cluster.create(collection('sbw-2', files));
    await cluster.startController();
    await waitFor(
      'sbw-2 Completed after the controller restart',
      async () => (await conditions('sbw-2'))['Completed'] === 'True',
      90_000,
      200,
    );
    expect(uploads.map((u) => u.url)).toEqual([
      `/bundles/${NODE}_sbw-1.tar.gz`,
      `/bundles/${NODE}_sbw-2.tar.gz`,
    ]);
  }, 240_000);
});
