import { request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeRequestError } from '../errors.js';

/**
 * A small JSON client for kube-apiserver writes with a keep-alive agent. client-node opens a new
 * TLS connection per request; on a 2-core machine that handshake dominates bulk writes (measured:
 * 10 ms per request against 2.5 ms with keep-alive). Credentials come from the KubeConfig.
 */
export class KubeHttp {
  private constructor(
    private readonly base: URL,
    private readonly agent: Agent | undefined,
    private readonly headers: Record<string, string>,
  ) {}

  static async fromKubeConfig(kc: KubeConfig, maxSockets = 32): Promise<KubeHttp> {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new KubeRequestError('kubeconfig has no current cluster', undefined);
    const opts: RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const base = new URL(cluster.server);
    const agent =
      base.protocol === 'https:'
        ? new Agent({
            keepAlive: true,
            maxSockets,
            ...(opts.ca ? { ca: opts.ca } : {}),
            ...(opts.cert ? { cert: opts.cert } : {}),
            ...(opts.key ? { key: opts.key } : {}),
            ...(opts.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
          })
        : undefined;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
    return new KubeHttp(base, agent, headers);
  }

  request<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const url = new URL(path, this.base);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { ...this.headers, accept: 'application/json' };
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        url,
        { method, headers, ...(this.agent ? { agent: this.agent } : {}), timeout: 60_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) =>
            reject(
              new KubeRequestError(`${method} ${url.pathname}: ${err.message}`, undefined, { cause: err }),
            ),
          );
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              parsed = text;
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(parsed as T);
            const message = (parsed as { message?: string } | undefined)?.message ?? `HTTP ${status}`;
            reject(new KubeRequestError(`${method} ${url.pathname}: ${message}`, status));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (err) =>
        reject(new KubeRequestError(`${method} ${url.pathname}: ${err.message}`, undefined, { cause: err })),
      );
      req.end(payload);
    });
  }

  close(): void {
    this.agent?.destroy();
  }
}
