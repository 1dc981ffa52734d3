import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  readonly method?: HttpMethod;
  /** Absolute path on the server, e.g. /apis/controlplane.antrea.io/v1beta2/networkpolicies. */
  readonly path: string;
  /** Query parameters; undefined values are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Sent as JSON unless contentType says otherwise (then it must be a string). */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/** One HTTP(S) server antctl talks to: the Kubernetes API, the controller API, or an agent API. */
export interface ApiClient {
  /** Base URL, for messages ("cannot reach ... at <target>"). */
  readonly target: string;
  request(req: ApiRequest): Promise<ApiResponse>;
}

export interface HttpApiClientOptions {
  /** http(s)://host:port */
  readonly baseUrl: string;
  /** TLS and auth material (ca, cert, key, headers, rejectUnauthorized, servername). */
  readonly tls?: RequestOptions;
  /** Extra headers on every request (Authorization). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-request deadline; 0 means none (Antrea's --timeout default). */
  readonly timeoutMs?: number;
}

export function buildPath(path: string, query?: Readonly<Record<string, string | undefined>>): string {
  if (query === undefined) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

/** Node's http/https client behind ApiClient; no dependency beyond the standard library. */
export class HttpApiClient implements ApiClient {
  readonly target: string;
  private readonly url: URL;

  constructor(private readonly options: HttpApiClientOptions) {
    this.url = new URL(options.baseUrl);
    this.target = options.baseUrl;
  }

  request(req: ApiRequest): Promise<ApiResponse> {
    const isHttps = this.url.protocol === 'https:';
    let payload: Buffer | undefined;
    const headers: Record<string, string> = {
      accept: req.accept ?? 'application/json',
      ...(this.options.tls?.headers as Record<string, string> | undefined),
      ...this.options.headers,
    };
    if (req.body !== undefined) {
      payload = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
      headers['content-type'] = req.contentType ?? 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const opts: RequestOptions = {
      ...(isHttps ? this.options.tls : {}),
      protocol: this.url.protocol,
      hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
      port: this.url.port || (isHttps ? 443 : 80),
      method: req.method ?? 'GET',
      path: buildPath(`${this.url.pathname.replace(/\/$/, '')}${req.path}`, req.query),
      headers,
      // Each antctl run issues a handful of requests; keeping sockets alive would only hold the
      // process open after the command is done.
      agent: false,
    };
    const send = isHttps ? httpsRequest : httpRequest;
    return new Promise<ApiResponse>((resolve, reject) => {
      const r = send(opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      });
      r.on('error', reject);
      const timeoutMs = this.options.timeoutMs ?? 0;
      if (timeoutMs > 0) {
        r.setTimeout(timeoutMs, () =>
          r.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        );
      }
      if (payload !== undefined) r.write(payload);
      r.end();
    });
  }
}
