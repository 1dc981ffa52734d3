// What the SupportBundleCollection watch tests share: a real kube-apiserver with the CRDs, the
// antrea-agent RBAC of Antrea's chart for collections, one Node, the upload Secret, a real
// antrea-controller (in-process, as cmd/antrea-controller composes it) and the agent's HTTP/2
// connection to it with a token of the antrea-agent ServiceAccount.
import { fileURLToPath } from 'node:url';
import { Http2ControllerConnection } from '@antrea-ts/agent';
import { CRD_KINDS, type SupportBundleCollection } from '@antrea-ts/apis';
import { AntreaController } from '@antrea-ts/controller';
import {
  applyObjects,
  freePort,
  installCrds,
  type KubeCluster,
  serviceAccountWithClusterRole,
  startKube,
} from '@antrea-ts/harness';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from 'pino';

const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const { group, version, plural } = CRD_KINDS.SupportBundleCollection;
/** Where the upload credentials are. */
const UPLOAD_SECRET = { name: 'sbw-upload', namespace: 'kube-system' };

/** A collection of `node`'s bundle to `fileServer`, with the upload Secret's credentials of `authType`. */
export function collectionFor(
  name: string,
  node: string,
  fileServer: { url: string; hostPublicKey?: string },
  authType: 'BearerToken' | 'BasicAuthentication',
): SupportBundleCollection {
  return {
    apiVersion: `${group}/${version}`,
    kind: 'SupportBundleCollection',
    metadata: { name },
    spec: {
      nodes: { nodeNames: [node] },
      expirationMinutes: 10,
      fileServer,
      authentication: { authType, authSecret: UPLOAD_SECRET },
    },
  } as SupportBundleCollection;
}

export interface CollectionCluster {
  readonly kube: KubeCluster;
  readonly connection: Http2ControllerConnection;
  startController(): Promise<void>;
  stopController(): Promise<void>;
  create(body: SupportBundleCollection): Promise<void>;
  /** The CR's conditions, type -> status. */
  conditions(name: string): Promise<Record<string, string>>;
  /** The CR's condition messages, type -> message. */
  messages(name: string): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export async function startCollectionCluster(o: {
  node: string;
  secretData: Record<string, string>;
  logger: Logger;
}): Promise<CollectionCluster> {
  const { logger } = o;
  const kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
  const port = await freePort('127.0.0.1');
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
    { apiVersion: 'v1', kind: 'Node', metadata: { name: o.node } },
    { apiVersion: 'v1', kind: 'Secret', metadata: UPLOAD_SECRET, stringData: o.secretData },
  ]);
  let controller: AntreaController | undefined;
  const startController = async () => {
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
  };
  await startController();

  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  const token = (await kube.kubectl(['create', 'token', 'antrea-agent', '-n', 'kube-system'])).trim();
  const connection = new Http2ControllerConnection({
    url: `https://127.0.0.1:${port}`,
    servername: 'antrea.kube-system.svc',
    // Read again before every new session, as antrea-agent does.
    ca: async () =>
      (await core.readNamespacedConfigMap({ name: 'antrea-ca', namespace: 'kube-system' })).data?.[
        'ca.crt'
      ] ?? '',
    token: async () => token,
  });
  const crs = kube.kubeConfig.makeApiClient(CustomObjectsApi);
  const read = async (name: string) =>
    ((await crs.getClusterCustomObject({ group, version, plural, name })) as SupportBundleCollection).status
      ?.conditions ?? [];
  return {
    kube,
    connection,
    startController,
    stopController: async () => controller?.stop(),
    create: async (body) => {
      await crs.createClusterCustomObject({ group, version, plural, body });
    },
    conditions: async (name) => Object.fromEntries((await read(name)).map((c) => [c.type, c.status])),
    messages: async (name) => Object.fromEntries((await read(name)).map((c) => [c.type, c.message ?? ''])),
    stop: async () => {
      connection.close();
      await controller?.stop();
      await kube.stop();
    },
  };
}
