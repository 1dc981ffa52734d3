import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createKubePki,
  etcdCommand,
  freePort,
  httpsStatus,
  kubeApiServerArgs,
  kubeControllerManagerArgs,
  run,
} from '@antrea-ts/harness';
import { LabError } from './errors.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { APISERVER_PORT, type LabLayout } from './layout.js';
import { isRunning, spawnDetached } from './processes.js';
import type { ProcessRecord } from './state.js';
import { waitUntil } from './wait.js';

export interface KubeStarted {
  server: string;
  processes: ProcessRecord[];
}

/**
 * etcd, kube-apiserver (on the underlay host address, so netns Nodes reach it) and
 * kube-controller-manager (namespace deletion, garbage collection, service-account tokens), all
 * detached, with their data, certificates and logs under the lab's state dir.
 */
export async function startKube(options: {
  layout: LabLayout;
  binDir: string;
  bindAddress: string;
  /** Records each process as soon as it runs, so a failed `up` can still be taken down. */
  record: (p: ProcessRecord) => Promise<void>;
}): Promise<KubeStarted> {
  const { layout, binDir, bindAddress } = options;
  for (const binary of ['kube-apiserver', 'kube-controller-manager', 'kubectl']) {
    if (!existsSync(join(binDir, binary))) {
      throw new LabError('LAB_MISSING_BINARY', `${binary} not found in ${binDir}: run hack/install-deps.sh`);
    }
  }
  mkdirSync(layout.pkiDir, { recursive: true });
  const { ca, frontProxyCa, saKey, serving, admin, frontProxyClient } = await createKubePki(layout.pkiDir, {
    bindAddress,
    caCommonName: 'antrea-ts-lab-ca',
    frontProxyCaCommonName: 'antrea-ts-lab-front-proxy-ca',
  });
  const processes: ProcessRecord[] = [];
  const started = async (p: ProcessRecord) => {
    processes.push(p);
    await options.record(p);
  };

  const { url: etcdUrl, argv: etcdArgv } = await etcdCommand(layout.etcdDir);
  const etcd = spawnDetached({
    name: 'etcd',
    log: layout.log('etcd'),
    cmdlineMatch: layout.etcdDir,
    argv: etcdArgv,
  });
  await started(etcd);
  await waitUntil(
    `etcd /health (log: ${etcd.log})`,
    async () => {
      assertAlive(etcd);
      return (await fetch(`${etcdUrl}/health`)).ok;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );

  // The well-known port when free; another lab or a local cluster may hold it.
  const port = (await portFree(bindAddress, APISERVER_PORT)) ? APISERVER_PORT : await freePort(bindAddress);
  const server = `https://${bindAddress}:${port}`;
  const apiserver = spawnDetached({
    name: 'kube-apiserver',
    log: layout.log('kube-apiserver'),
    cmdlineMatch: layout.pkiDir,
    argv: [
      join(binDir, 'kube-apiserver'),
      ...kubeApiServerArgs({
        etcdUrl,
        bindAddress,
        port,
        certDir: join(layout.pkiDir, 'cert-dir'),
        serving,
        ca,
        saKey,
        frontProxyCa,
        frontProxyClient,
      }),
    ],
  });
  await started(apiserver);
  writeFileSync(layout.kubeconfig, kubeconfigYaml({ server, caFile: ca.cert, user: 'admin', client: admin }));
  await waitUntil(
    `kube-apiserver /readyz (log: ${apiserver.log})`,
    async () => {
      assertAlive(apiserver);
      return (await httpsStatus(server, '/readyz', ca.cert, admin)) === 200;
    },
    { timeoutMs: 90_000 },
  );

  const kcm = spawnDetached({
    name: 'kube-controller-manager',
    log: layout.log('kube-controller-manager'),
    cmdlineMatch: layout.kubeconfig,
    argv: [
      join(binDir, 'kube-controller-manager'),
      ...kubeControllerManagerArgs({ kubeconfig: layout.kubeconfig, saKey, ca }),
    ],
  });
  await started(kcm);
  return { server, processes };
}

export function caFile(layout: LabLayout): string {
  return join(layout.pkiDir, 'ca.crt');
}

/** kubectl against the lab with the admin kubeconfig. */
export function kubectl(
  binDir: string,
  layout: LabLayout,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  return run([join(binDir, 'kubectl'), `--kubeconfig=${layout.kubeconfig}`, ...args], options);
}

function assertAlive(p: ProcessRecord): void {
  if (!isRunning(p.pid)) throw new LabError('LAB_START_TIMEOUT', `${p.name} exited; see ${p.log}`);
}

async function portFree(host: string, port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}
