import { type ClientHttp2Session, connect, constants as h2 } from 'node:http2';
import { CONTENT_TYPE_PROTOBUF } from '@antrea-ts/apis';
import { AgentError } from '../errors.js';

/**
 * How the agent reaches antrea-controller's API (port 10349): an HTTP/2 session over TLS verified
 * with the CA the controller publishes in ConfigMap antrea-ca, and the agent's service-account
 * token. Injected so tests can point it at an in-process controller.
 */
export interface ControllerConnection {
  /** The current session; a new one (with the CA read again) after the previous closed. */
  session(): Promise<ClientHttp2Session>;
  token(): Promise<string>;
  /** POSTs a protobuf object; resolves with the HTTP status. */
  post(path: string, body: Uint8Array): Promise<number>;
  close(): void;
}

export interface Http2ControllerConnectionOptions {
  /** https://host:port of the controller. */
  readonly url: string;
  /** Name the controller's certificate carries (antrea.kube-system.svc). */
  readonly servername: string;
  /** PEM CA bundle; asked again before every new session, as the controller may rotate it. */
  readonly ca: () => Promise<string>;
  readonly token: () => Promise<string>;
  readonly requestTimeoutMs?: number;
}

export class Http2ControllerConnection implements ControllerConnection {
  private current: ClientHttp2Session | undefined;
  private pending: Promise<ClientHttp2Session> | undefined;
  private closed = false;

  constructor(private readonly options: Http2ControllerConnectionOptions) {}

  session(): Promise<ClientHttp2Session> {
    if (this.closed) return Promise.reject(new AgentError('AGENT_STOPPED', 'controller connection closed'));
    const s = this.current;
    if (s && !s.closed && !s.destroyed) return Promise.resolve(s);
    this.pending ??= (async () => {
      try {
        const ca = await this.options.ca();
        const session = connect(this.options.url, { ca, servername: this.options.servername });
        session.on('error', () => {});
        session.on('close', () => {
          if (this.current === session) this.current = undefined;
        });
        this.current = session;
        return session;
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }

  token(): Promise<string> {
    return this.options.token();
  }

  async post(path: string, body: Uint8Array): Promise<number> {
    const session = await this.session();
    const token = await this.token();
    return new Promise<number>((resolve, reject) => {
      const req = session.request({
        ':method': 'POST',
        ':path': path,
        'content-type': CONTENT_TYPE_PROTOBUF,
        accept: CONTENT_TYPE_PROTOBUF,
        authorization: `Bearer ${token}`,
      });
      req.setTimeout(this.options.requestTimeoutMs ?? 10_000, () => req.close(h2.NGHTTP2_CANCEL));
      let status = 0;
      req.on('response', (h) => {
        status = Number(h[':status']);
      });
      req.on('error', (err) =>
        reject(new AgentError('AGENT_POLICY_WATCH_FAILED', `POST ${path} failed`, { cause: err })),
      );
      req.on('close', () =>
        status
          ? resolve(status)
          : reject(new AgentError('AGENT_POLICY_WATCH_FAILED', `POST ${path}: no response`)),
      );
      req.resume();
      req.end(body);
    });
  }

  close(): void {
    this.closed = true;
    this.current?.close();
    this.current = undefined;
  }
}
