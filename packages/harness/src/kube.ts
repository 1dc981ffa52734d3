import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { HarnessError } from './errors.js';
import { run, waitFor } from './exec.js';
import { httpsStatus } from './https-status.js';
import { createKubePki } from './kube-pki.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { ManagedProcess } from './managed-process.js';
import { cachedBinDir } from './paths.js';
import type { CertFiles } from './pki.js';
import { freePort } from './ports.js';
import { makeTempDir } from './temp-dir.js';

export interface StartKubeOptions {
  /** Address kube-apiserver listens on; netns Nodes need one they can route to. */
  bindAddress?: string;
  /** Also run kube-controller-manager (namespace deletion, garbage collection, service accounts). */
  controllerManager?: boolean;
  binDir?: string;
  logger?: Logger;
}

export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/16';

/** A real etcd + kube-apiserver (and optionally kube-controller-manager) on random ports. */
export interface KubeCluster {
  /** https://host:port of kube-apiserver. */
  readonly server: string;
  readonly kubeconfigPath: string;
  /** Admin (system:masters) client configuration. */
  readonly kubeConfig: KubeConfig;
  readonly dir: string;
  /** The cluster CA that signs the apiserver's serving cert and client certs. */
  readonly ca: CertFiles;
  /** CA and client cert the aggregation layer uses to call extension API servers. */
  readonly frontProxyCa: CertFiles;
  readonly serviceAccountIssuer: string;
  /** Folder of the component logs. */
  readonly logDir: string;
  kubectl(args: readonly string[], options?: { input?: string }): Promise<string>;
  stop(): Promise<void>;
}

export async function startKube(options: StartKubeOptions = {}): Promise<KubeCluster> {
  const binDir = options.binDir ?? cachedBinDir();
  for (const binary of [
    'kube-apiserver',
    'kubectl',
    ...(options.controllerManager ? ['kube-controller-manager'] : []),
  ]) {
    if (!existsSync(join(binDir, binary))) {
      throw new HarnessError(
        'HARNESS_MISSING_BINARY',
        `${binary} not found in ${binDir}: run hack/install-deps.sh`,
      );
    }
  }
  const bindAddress = options.bindAddress ?? '127.0.0.1';
  const log = options.logger?.child({ component: 'harness-kube' });
  const tmp = makeTempDir('kube');
  const dir = tmp.path;
  const pkiDir = join(dir, 'pki');
  const logDir = join(dir, 'logs');
  mkdirSync(pkiDir);
  mkdirSync(logDir);
  const processes: ManagedProcess[] = [];

  try {
    const { ca, frontProxyCa, saKey, serving, admin, frontProxyClient } = await createKubePki(pkiDir, {
      bindAddress,
      caCommonName: 'antrea-ts-test-ca',
      frontProxyCaCommonName: 'antrea-ts-front-proxy-ca',
    });

    const etcd = await startEtcd(dir, logDir);
    processes.push(etcd.process);

    const port = await freePort(bindAddress);
    const server = `https://${bindAddress}:${port}`;
    const apiserver = new ManagedProcess({
      name: 'kube-apiserver',
      logFile: join(logDir, 'kube-apiserver.log'),
      argv: [
        join(binDir, 'kube-apiserver'),
        ...kubeApiServerArgs({
          etcdUrl: etcd.url,
          bindAddress,
          port,
          certDir: join(dir, 'cert-dir'),
          serving,
          ca,
          saKey,
          frontProxyCa,
          frontProxyClient,
        }),
      ],
    });
    processes.push(apiserver);

    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfigPath,
      kubeconfigYaml({ server, caFile: ca.cert, cluster: 'antrea-ts', user: 'admin', client: admin }),
    );
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);

    await waitFor(
      'kube-apiserver /readyz',
      async () => {
        apiserver.assertRunning();
        return (await httpsStatus(server, '/readyz', ca.cert, admin)) === 200;
      },
      90_000,
      200,
    );

    if (options.controllerManager) {
      processes.push(
        new ManagedProcess({
          name: 'kube-controller-manager',
          logFile: join(logDir, 'kube-controller-manager.log'),
          argv: [
            join(binDir, 'kube-controller-manager'),
            ...kubeControllerManagerArgs({ kubeconfig: kubeconfigPath, saKey, ca }),
          ],
        }),
      );
    }
    log?.info({ server, dir }, 'kube-apiserver ready');

    let stopped = false;
    return {
      server,
      kubeconfigPath,
      kubeConfig,
      dir,
      ca,
      frontProxyCa,
      serviceAccountIssuer: SERVICE_ACCOUNT_ISSUER,
      logDir,
      kubectl: (args, runOptions) =>
        run([join(binDir, 'kubectl'), `--kubeconfig=${kubeconfigPath}`, ...args], runOptions),
      async stop() {
        if (stopped) return;
        stopped = true;
        for (const p of [...processes].reverse()) await p.stop();
        tmp.remove();
        log?.info('kube-apiserver stopped');
      },
    };
  } catch (error) {
    for (const p of [...processes].reverse()) await p.kill();
    tmp.remove();
    throw error;
  }
}

/** What kube-apiserver needs to start: where etcd is, where to listen, and the PKI files. */
export interface KubeApiServerSetup {
  etcdUrl: string;
  bindAddress: string;
  port: number;
  certDir: string;
  serving: CertFiles;
  ca: CertFiles;
  saKey: { key: string; pub: string };
  frontProxyCa: CertFiles;
  frontProxyClient: CertFiles;
}

/**
 * kube-apiserver's flags for a cluster without kubelet or kube-proxy, shared by the test harness
 * and the lab so both run the same apiserver.
 */
export function kubeApiServerArgs(s: KubeApiServerSetup): string[] {
  return [
    `--etcd-servers=${s.etcdUrl}`,
    `--bind-address=${s.bindAddress}`,
    `--advertise-address=${s.bindAddress}`,
    `--secure-port=${s.port}`,
    `--cert-dir=${s.certDir}`,
    `--tls-cert-file=${s.serving.cert}`,
    `--tls-private-key-file=${s.serving.key}`,
    `--client-ca-file=${s.ca.cert}`,
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    `--service-account-key-file=${s.saKey.pub}`,
    `--service-account-signing-key-file=${s.saKey.key}`,
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    '--authorization-mode=Node,RBAC',
    // Pods are created before any controller has made the namespace's default ServiceAccount, and
    // no kubelet mounts tokens anyway.
    '--disable-admission-plugins=ServiceAccount',
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    `--requestheader-client-ca-file=${s.frontProxyCa.cert}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${s.frontProxyClient.cert}`,
    `--proxy-client-key-file=${s.frontProxyClient.key}`,
    // There is no kube-proxy: the aggregator must dial Service endpoints, not the ClusterIP.
    '--enable-aggregator-routing=true',
    '--profiling=false',
    '--v=1',
  ];
}

/**
 * kube-controller-manager's flags: only the controllers a cluster without kubelet needs (namespace
 * deletion, garbage collection, service-account tokens, endpoints), shared with the lab.
 */
export function kubeControllerManagerArgs(options: {
  kubeconfig: string;
  saKey: { key: string };
  ca: CertFiles;
}): string[] {
  return [
    `--kubeconfig=${options.kubeconfig}`,
    '--controllers=namespace,garbagecollector,serviceaccount,serviceaccount-token,endpoint,endpointslice',
    `--service-account-private-key-file=${options.saKey.key}`,
    `--root-ca-file=${options.ca.cert}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--v=1',
  ];
}

/**
 * A single-member etcd on two free loopback ports: its client URL and the command that runs it.
 * Shared by the harness and the lab so both run the same etcd.
 */
export async function etcdCommand(dataDir: string): Promise<{ url: string; argv: string[] }> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const argv = [
    'etcd',
    '--name=default',
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // The data is thrown away with the cluster: no fsync keeps etcd from being the bottleneck on a
    // small disk.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
  return { url, argv };
}

async function startEtcd(dir: string, logDir: string): Promise<{ url: string; process: ManagedProcess }> {
  const { url, argv } = await etcdCommand(join(dir, 'etcd'));
  const etcd = new ManagedProcess({ name: 'etcd', logFile: join(logDir, 'etcd.log'), argv });
  await waitFor(
    'etcd /health',
    async () => {
      etcd.assertRunning();
      const response = await fetch(`${url}/health`);
      return response.ok;
    },
    30_000,
    100,
  );
  return { url, process: etcd };
}
