import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type NsxErrorBody, NsxRequestError, NsxUnreachableError } from '../errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the client timeout (long polls). */
  timeoutMs?: number;
  /** Raw body bytes (support bundle archives); `body` is ignored then. */
  raw?: { data: Buffer; contentType: string };
}

/** The one method everything NSX-facing goes through; tests substitute it. */
export interface NsxTransport {
  request<T = unknown>(method: HttpMethod, path: string, body?: unknown, opts?: RequestOptions): Promise<T>;
}

export interface NsxClientOptions {
  /** https://manager[:port] or http://... (the simulator without TLS). */
  baseUrl: string;
  /** Principal identity client certificate and key (PEM): how the real adapter authenticates. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** CA bundle trusted for the manager's certificate. */
  ca?: string | Buffer;
  /** Skip server certificate verification (NSXInsecure in mp-adapter.conf). */
  insecure?: boolean;
  basicAuth?: { user: string; password: string };
  /** Per-request timeout in ms (NSXClientTimeout, default 120 s). */
  timeoutMs?: number;
}

function buildUrl(base: URL, path: string, query: RequestOptions['query']): URL {
  const url = new URL(path, base);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url;
}

/**
 * NSX REST client over node:http(s): client-certificate TLS, basic auth, JSON bodies, NSX error
 * bodies mapped to coded errors (NsxRequestError), transport failures to NsxUnreachableError.
 * node:https is used rather than fetch because Node's fetch has no client-certificate option
 * without the undici package.
 */
export class NsxClient implements NsxTransport {
  private readonly base: URL;
  private readonly agent: HttpsAgent | undefined;
  private readonly timeoutMs: number;
  private readonly auth: string | undefined;

  constructor(opts: NsxClientOptions) {
    this.base = new URL(opts.baseUrl);
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.auth = opts.basicAuth
      ? `Basic ${Buffer.from(`${opts.basicAuth.user}:${opts.basicAuth.password}`).toString('base64')}`
      : undefined;
    if (this.base.protocol === 'https:') {
      this.agent = new HttpsAgent({
        keepAlive: true,
        ...(opts.cert ? { cert: opts.cert } : {}),
        ...(opts.key ? { key: opts.key } : {}),
        ...(opts.ca ? { ca: opts.ca } : {}),
        rejectUnauthorized: !opts.insecure,
      });
    }
  }

  request<T = unknown>(
    method: HttpMethod,
    path: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<T> {
    const url = buildUrl(this.base, path, opts.query);
    const payload = opts.raw
      ? opts.raw.data
      : body === undefined
        ? undefined
        : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
    if (payload) {
      headers['content-type'] = opts.raw?.contentType ?? 'application/json';
      headers['content-length'] = String(payload.length);
    }
    if (this.auth) headers['authorization'] = this.auth;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const display = `${url.pathname}`;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        url,
        {
          method,
          headers,
          ...(this.agent ? { agent: this.agent } : {}),
          timeout: opts.timeoutMs ?? this.timeoutMs,
          ...(opts.signal ? { signal: opts.signal } : {}),
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) =>
            reject(new NsxUnreachableError(`NSX ${method} ${display}: ${err.message}`, { cause: err })),
          );
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve(parsed as T);
            else reject(new NsxRequestError(method, display, status, parsed as NsxErrorBody | undefined));
          });
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`timed out after ${opts.timeoutMs ?? this.timeoutMs} ms`)),
      );
      req.on('error', (err) =>
        reject(new NsxUnreachableError(`NSX ${method} ${display}: ${err.message}`, { cause: err })),
      );
      if (payload) req.end(payload);
      else req.end();
    });
  }

  /** Closes kept-alive sockets. */
  close(): void {
    this.agent?.destroy();
  }
}

interface ListPage<T> {
  results?: T[];
  cursor?: string;
  result_count?: number;
}

/**
 * Reads every page of an NSX list: follows `cursor` until NSX stops returning one (the simulator
 * and NSX both omit it on the last page). `result_count` is only a hint (NSX sets it on the first
 * page only), so it is not used to stop.
 */
export async function listAll<T>(
  t: NsxTransport,
  path: string,
  opts: RequestOptions = {},
  pageSize = 1000,
): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100_000; pages++) {
    const page = await t.request<ListPage<T>>('GET', path, undefined, {
      ...opts,
      query: { ...(opts.query ?? {}), page_size: pageSize, cursor },
    });
    out.push(...(page?.results ?? []));
    cursor = page?.cursor;
    if (!cursor) break;
  }
  return out;
}

/**
 * PUT with optimistic concurrency: reads the object's `_revision`, sends it, and re-reads once on a
 * stale-revision answer (someone else wrote in between). Creates when the object does not exist.
 */
export async function putWithRevision<T extends object>(
  t: NsxTransport,
  path: string,
  body: object,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let revision: number | undefined;
    try {
      revision = (await t.request<{ _revision?: number }>('GET', path))?._revision;
    } catch (err) {
      if (!(err instanceof NsxRequestError) || err.code !== 'NSX_NOT_FOUND') throw err;
    }
    try {
      return await t.request<T>(
        'PUT',
        path,
        revision === undefined ? body : { ...body, _revision: revision },
      );
    } catch (err) {
      if (attempt >= 1 || !(err instanceof NsxRequestError) || err.code !== 'NSX_STALE_REVISION') throw err;
    }
  }
}
