import { run, tryRun } from './exec.js';
import { type KubeCluster, type StartKubeOptions, startKube } from './kube.js';
import { applyObjects } from './kube-objects.js';
import { createVethPair, NET_PREFIX, uniqueTag } from './netns.js';
import { serviceWithEndpoints } from './service-endpoints.js';

/**
 * A real kube-apiserver that can call back into a server the test runs itself: an aggregated API
 * server behind an APIService, or an admission webhook. kube-apiserver refuses loopback endpoints,
 * so the test's server listens on an address of a veth of its own in the root namespace (this
 * kernel has no dummy links); the address is the caller's choice, in 198.18.250.0-198.18.255.255
 * (198.18.0.0/15 is reserved for network tests, underlays use 198.18.1-249.x, labs 198.19.x).
 */
export interface ExtensionServerSetup {
  readonly kube: KubeCluster;
  /** The address the test's server must listen on. */
  readonly ip: string;
  /**
   * Puts `ip:port` behind a Service (Service, Endpoints and EndpointSlice, since nothing fills them
   * here) and applies `others` in the same List, for what the test needs beside it (RBAC, APIServices).
   */
  expose(
    service: { name: string; namespace: string; port: number; portName?: string },
    others?: readonly object[],
  ): Promise<void>;
  /** Stops kube-apiserver and removes the veth. */
  stop(): Promise<void>;
}

export async function startExtensionServerSetup(
  options: StartKubeOptions & { ip: string },
): Promise<ExtensionServerSetup> {
  const { ip, ...kubeOptions } = options;
  const kube = await startKube(kubeOptions);
  const link = `${NET_PREFIX}${uniqueTag()}x`;
  const stop = async () => {
    await kube.stop();
    await tryRun(['ip', 'link', 'delete', link]);
  };
  try {
    await createVethPair({ name: link }, { name: `${link}p` });
    await run(['ip', 'addr', 'add', `${ip}/32`, 'dev', link]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    kube,
    ip,
    async expose(service, others = []) {
      await applyObjects(kube, [...serviceWithEndpoints({ ...service, ip }), ...others]);
    },
    stop,
  };
}
