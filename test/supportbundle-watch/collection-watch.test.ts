// The agent's SupportBundleCollection watch against a real antrea-controller (in-process, as
// cmd/antrea-controller composes it) and a real kube-apiserver: CR -> controller span -> protobuf
// watch with fieldSelector nodeName= -> collect, upload (HTTP PUT), report -> CR status; then a
// controller restart with a collection created while it was down.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  Http2ControllerConnection,
  HttpBundleUploader,
  SupportBundleCollectionAgent,
} from '@antrea-ts/agent';
import { CRD_KINDS, type SupportBundleCollection } from '@antrea-ts/apis';
import { AntreaController } from '@antrea-ts/controller';
import {
  applyObjects,
  freePort,
  installCrds,
  type KubeCluster,
  serviceAccountWithClusterRole,
  startKube,
  waitFor,
} from '@antrea-ts/harness';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const NODE = 'sbw-n1';
const UPLOAD_TOKEN = 'upload-token-sbw-4c3b2a';
const { group, version, plural } = CRD_KINDS.SupportBundleCollection;

let kube: KubeCluster;
let controller: AntreaController | undefined;
let port: number;
let agent: SupportBundleCollectionAgent | undefined;
let connection: Http2ControllerConnection | undefined;
let fileServer: Server;
const uploads: { url: string; headers: IncomingHttpHeaders; bytes: number }[] = [];

async function startController(): Promise<void> {
  controller = new AntreaController(
    {
      version: 'test',
      bindAddress: '127.0.0.1',
      apiPort: port,
      service: { name: 'antrea', namespace: 'kube-system', port: 443 },
      publishCaBundle: true,
      antreaPolicy: false,
      enablePrometheusMetrics: false,
      controllerInfoIntervalMs: 60_000,
    },
    { logger, kubeConfig: kube.kubeConfig },
  );
  await controller.start();
}

function collection(name: string, fileUrl: string): SupportBundleCollection {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'SupportBundleCollection',
    metadata: { name },
    spec: {
      nodes: { nodeNames: [NODE] },
      expirationMinutes: 10,
      fileServer: { url: fileUrl },
      authentication: {
        authType: 'BearerToken',
        authSecret: { name: 'sbw-upload', namespace: 'kube-system' },
      },
    },
  } as SupportBundleCollection;
}

async function conditions(name: string): Promise<Record<string, string>> {
  const api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const cr = (await api.getClusterCustomObject({ group, version, plural, name })) as SupportBundleCollection;
  return Object.fromEntries((cr.status?.conditions ?? []).map((c) => [c.type, c.status]));
}

beforeAll(async () => {
  kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
  port = await freePort('127.0.0.1');
  await applyObjects(kube, [
    // What Antrea's antrea-agent ClusterRole grants for collections.
    ...serviceAccountWithClusterRole({
      name: 'antrea-agent',
      namespace: 'kube-system',
      clusterRole: 'antrea-agent',
      rules: [
        {
          apiGroups: ['controlplane.antrea.io'],
          resources: ['supportbundlecollections'],
          verbs: ['get', 'watch', 'list'],
        },
        {
          apiGroups: ['controlplane.antrea.io'],
          resources: ['supportbundlecollections/status'],
          verbs: ['create'],
        },
      ],
    }),
    { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sbw-upload', namespace: 'kube-system' },
      stringData: { token: UPLOAD_TOKEN },
    },
  ]);
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
  await startController();

  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const token = (await kube.kubectl(['create', 'token', 'antrea-agent', '-n', 'kube-system'])).trim();
  connection = new Http2ControllerConnection({
    url: `https://127.0.0.1:${port}`,
    servername: 'antrea.kube-system.svc',
    // Read again before every new session, as antrea-agent does.
    ca: async () =>
      (await core.readNamespacedConfigMap({ name: 'antrea-ca', namespace: 'kube-system' })).data?.[
        'ca.crt'
      ] ?? '',
    token: async () => token,
  });
  agent = new SupportBundleCollectionAgent({
    node: NODE,
    connection,
    collect: async () => ({ archive: Buffer.from('a bundle'), sum: 'x' }),
    uploader: new HttpBundleUploader(),
    logger,
    retryMs: 200,
  });
  agent.start();
}, 180_000);

afterAll(async () => {
  await agent?.stop();
  connection?.close();
  await controller?.stop();
  await new Promise((r) => fileServer?.close(r));
  await kube?.stop();
});

describe('SupportBundleCollection through the controller watch', () => {
  it('uploads with the Secret token and completes; after a controller restart runs only the collection created meanwhile', async () => {
    const files = `http://127.0.0.1:${(fileServer.address() as AddressInfo).port}/bundles`;
    const api = kube.kubeConfig.makeApiClient(CustomObjectsApi);
    await api.createClusterCustomObject({ group, version, plural, body: collection('sbw-1', files) });
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
    await controller?.stop();
    await api.createClusterCustomObject({ group, version, plural, body: collection('sbw-2', files) });
    await startController();
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
