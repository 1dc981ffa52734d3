import { readFileSync } from 'node:fs';
import { request } from 'node:https';

/**
 * The HTTP status of a GET with a client certificate, trusting only `caFile`: how a harness checks
 * kube-apiserver's /readyz before any kubeconfig works. A connection error rejects.
 */
export function httpsStatus(
  server: string,
  path: string,
  caFile: string,
  client: { cert: string; key: string },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server),
      {
        ca: readFileSync(caFile),
        cert: readFileSync(client.cert),
        key: readFileSync(client.key),
        timeout: 5_000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });
}
