import { request } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

// Raw JSON over HTTPS, authenticated from the admin kubeconfig. The tests need the exact status
// code and Status body of refused writes, and CRD schemas must reach the server with their wire
// field names (x-kubernetes-int-or-string), which client-node's typed models would rename.

export interface RestResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON read back from the apiserver
  body: any;
}

export interface RestClient {
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RestResponse>;
}

export function restClient(kubeConfig: KubeConfig): RestClient {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no current cluster');
  return {
    async call(method, path, body, headers = {}) {
      const options: Parameters<KubeConfig['applyToHTTPSOptions']>[0] = {
        method,
        headers: { accept: 'application/json', 'content-type': 'application/json', ...headers },
        timeout: 30_000,
      };
      await kubeConfig.applyToHTTPSOptions(options);
      return new Promise((resolve, reject) => {
        const req = request(new URL(path, server), options, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              // Not JSON (should not happen with accept: application/json); keep the text.
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    },
  };
}
