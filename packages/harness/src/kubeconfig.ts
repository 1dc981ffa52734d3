import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeconfigOptions {
  server: string;
  /** The cluster CA's certificate file (embedded as certificate-authority-data). */
  caFile: string;
  /** Cluster name; the context is `<user>@<cluster>`. */
  cluster: string;
  user: string;
  /** Client certificate files, or else `token`. */
  client?: { cert: string; key: string };
  token?: string;
}

/**
 * A kubeconfig for one user of a cluster, with a client certificate or a bearer token, the files'
 * contents embedded: `startKube`'s admin kubeconfig and the lab's admin, controller and agent ones.
 */
export function kubeconfigYaml(options: KubeconfigOptions): string {
  const b64 = (file: string) => readFileSync(file).toString('base64');
  const { cluster, user } = options;
  const credentials = options.client
    ? `    client-certificate-data: ${b64(options.client.cert)}\n    client-key-data: ${b64(options.client.key)}\n`
    : `    token: ${options.token ?? ''}\n`;
  return `apiVersion: v1
kind: Config
clusters:
- name: ${cluster}
  cluster:
    server: ${options.server}
    certificate-authority-data: ${b64(options.caFile)}
users:
- name: ${user}
  user:
${credentials}contexts:
- name: ${user}@${cluster}
  context:
    cluster: ${cluster}
    user: ${user}
current-context: ${user}@${cluster}
`;
}

/**
 * Starts `server` on a free loopback port and returns a KubeConfig for it over plain HTTP, without
 * credentials: for unit tests of Kubernetes clients (informers, watches) against a scripted API server.
 */
export async function listenAsKubeApi(server: Server): Promise<KubeConfig> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // Without skipTLSVerify, client-node 1.x never completed a watch against this http:// server.
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
