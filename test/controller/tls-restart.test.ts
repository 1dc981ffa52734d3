import { once } from 'node:events';
import { connect } from 'node:tls';
import { AntreaController, type AntreaControllerConfig } from '@antrea-ts/controller';
import { freePort, type KubeCluster, startKube } from '@antrea-ts/harness';
import { CoreV1Api } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A restarted antrea-controller keeps its CA, as Antrea's does through Secret
// kube-system/antrea-controller-tls: clients that loaded antrea-ca before the restart (agents,
// antctl, the APIService caBundle) verify the new process without reloading anything. Only when
// the Secret is gone does a restart bring a new CA, which then replaces antrea-ca.

const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const SERVER_NAME = 'antrea.kube-system.svc';

let kube: KubeCluster;
let core: CoreV1Api;
let port: number;
let controller: AntreaController | undefined;

function config(): AntreaControllerConfig {
  return {
    version: 'test',
    bindAddress: '127.0.0.1',
    apiPort: port,
    service: { name: 'antrea', namespace: 'kube-system', port: 443 },
    publishCaBundle: true,
    antreaPolicy: false,
    enablePrometheusMetrics: false,
    controllerInfoIntervalMs: 60_000,
  };
}

async function restartController(): Promise<AntreaController> {
  await controller?.stop();
  controller = new AntreaController(config(), { logger, kubeConfig: kube.kubeConfig });
  await controller.start();
  return controller;
}

async function antreaCa(): Promise<string> {
  const cm = await core.readNamespacedConfigMap({ name: 'antrea-ca', namespace: 'kube-system' });
  return cm.data?.['ca.crt'] ?? '';
}

/** Serial number of the certificate the controller serves, verified against `ca`. */
async function verifiedServingSerial(ca: string): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port, ca, servername: SERVER_NAME });
  try {
    await once(socket, 'secureConnect');
    return socket.getPeerX509Certificate()!.serialNumber;
  } finally {
    socket.destroy();
  }
}

beforeAll(async () => {
  kube = await startKube({ logger });
  core = kube.kubeConfig.makeApiClient(CoreV1Api);
  port = await freePort();
}, 180_000);

afterAll(async () => {
  await controller?.stop();
  await kube?.stop();
});

describe('antrea-controller certificates across restarts', () => {
  it('persists its certificates in antrea-controller-tls and serves them again after a restart', async () => {
    const first = await restartController();
    const caBefore = await antreaCa();
    expect(caBefore).toBe(first.certificates.current().caBundlePem);
    const serial = await verifiedServingSerial(caBefore);
    const secret = await core.readNamespacedSecret({
      name: 'antrea-controller-tls',
      namespace: 'kube-system',
    });
    expect(secret.type).toBe('kubernetes.io/tls');
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(Buffer.from(secret.data!['tls.crt']!, 'base64').toString()).toBe(
      first.certificates.current().certPem,
    );

    const second = await restartController();
    // A client that kept the CA from before the restart verifies the new process.
    expect(await verifiedServingSerial(caBefore)).toBe(serial);
    expect(second.certificates.current().caBundlePem).toBe(caBefore);
    expect(await antreaCa()).toBe(caBefore);
  });

  it('without the Secret, a restart brings a new CA, publishes it and persists it', async () => {
    const caBefore = await antreaCa();
    await controller!.stop();
    await core.deleteNamespacedSecret({ name: 'antrea-controller-tls', namespace: 'kube-system' });
    const third = await restartController();
    const caAfter = third.certificates.current().caBundlePem;
    expect(caAfter).not.toBe(caBefore);
    // The old CA no longer verifies: the assertions above are not vacuous.
    await expect(verifiedServingSerial(caBefore)).rejects.toThrow();
    await verifiedServingSerial(caAfter);
    expect(await antreaCa()).toBe(caAfter);
    const secret = await core.readNamespacedSecret({
      name: 'antrea-controller-tls',
      namespace: 'kube-system',
    });
    expect(Buffer.from(secret.data!['ca.crt']!, 'base64').toString()).toBe(caAfter);
  });
});
