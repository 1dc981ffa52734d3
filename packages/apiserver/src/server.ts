import { randomUUID } from 'node:crypto';
import {
  createSecureServer,
  type Http2SecureServer,
  type Http2Session,
  constants as http2Constants,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { CONTROLLER_API_PORT } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import {
  type AuthenticationConfig,
  authenticateClientCert,
  EMPTY_AUTHENTICATION_CONFIG,
} from './authn/client-cert.js';
import { TokenAuthenticator, type TokenReviewer } from './authn/token-authenticator.js';
import type { UserInfo } from './authn/user.js';
import { type AccessReviewer, Authorizer, type AuthorizerOptions } from './authz/authorizer.js';
import type { CertificateSource, ServingCertificate } from './certs/cert-manager.js';
import { type Clock, systemClock } from './clock.js';
import { type ApiCodec, type ApiObject, codecForContentType, jsonCodec, negotiate } from './codec.js';
import { ApiServerError } from './errors.js';
import { HealthChecks } from './health.js';
import { type HttpRequest, type HttpResponse, headersDistinct } from './http-types.js';
import { parseListOptions } from './list-options.js';
import { ApiServerMetrics } from './metrics.js';
import {
  type ApiRequest,
  RawResponse,
  type ResourceDefinition,
  type ResourceHandler,
  type ResourceRegistry,
  type WatchHandle,
  type WatchSink,
} from './registry.js';
import { authenticateAndAuthorize, authenticateBearerToken, statusErrorHeaders } from './request-auth.js';
import { type RequestInfo, type ResourceRequestInfo, resolveRequestInfo, type Verb } from './request-info.js';
import { ApiError, tooLarge } from './status.js';
import { FrameCache } from './watch/frame-cache.js';
import { type FrameTarget, WatchStream, type WatchStreamLimits } from './watch/watch-stream.js';

/** Where the front-proxy and client CAs come from (AuthenticationConfigSource, or a fixed value). */
export interface AuthenticationConfigProvider {
  current(): AuthenticationConfig;
  onChange(listener: (config: AuthenticationConfig) => void): () => void;
}

export interface ApiServerOptions {
  logger: Logger;
  registry: ResourceRegistry;
  certificates: CertificateSource;
  tokenReviewer: TokenReviewer;
  accessReviewer: AccessReviewer;
  /** Prometheus registry the server's metrics go to (and /metrics serves). */
  metricsRegistry: Registry;
  authenticationConfig?: AuthenticationConfigProvider;
  clock?: Clock;
  /** Negotiable encodings, preferred first. Default JSON only; add the protobuf codec here. */
  codecs?: readonly ApiCodec[];
  /** Default 0.0.0.0. */
  host?: string;
  /** Default 10349 (CONTROLLER_API_PORT); 0 picks a free port. */
  port?: number;
  authentication?: { successTtlMs?: number; failureTtlMs?: number; maxEntries?: number };
  authorization?: Pick<
    AuthorizerOptions,
    'allowedTtlMs' | 'deniedTtlMs' | 'maxEntries' | 'alwaysAllowGroups' | 'alwaysAllowPaths'
  >;
  watch?: {
    limits?: Partial<WatchStreamLimits>;
    /** A watch without timeoutSeconds ends after between 1x and 2x this (kube's --min-request-timeout). Default 1800. */
    minRequestTimeoutSeconds?: number;
    /** How often deadlines, stalls and bookmarks are checked. Default 1 s. */
    tickMs?: number;
    /** A watch quiet this long gets a BOOKMARK if it asked for bookmarks. Default 60 s, like kube. */
    bookmarkIntervalMs?: number;
  };
  /** How long stop() lets connections flush before cutting them. Default 1 s. */
  shutdownGraceMs?: number;
  /** Largest request body accepted. Default 3 MiB, like kube-apiserver. */
  maxBodyBytes?: number;
  /** Source of randomness for watch timeouts (tests make it fixed). */
  random?: () => number;
  /**
   * Plain endpoints by exact path, served without authentication or authorization (as Antrea
   * serves its admission webhooks, which kube-apiserver calls anonymously, on the API port).
   */
  endpoints?: ReadonlyMap<string, PlainEndpoint>;
}

/** A request to a plain endpoint: the whole body, read up to maxBodyBytes. */
export interface PlainRequest {
  method: string;
  contentType: string | undefined;
  body: Buffer;
}

export interface PlainResponse {
  status: number;
  contentType: string;
  body: string | Uint8Array;
}

export type PlainEndpoint = (request: PlainRequest) => Promise<PlainResponse> | PlainResponse;

interface ActiveWatch {
  stream: WatchStream;
  handle: WatchHandle | undefined;
  sink: WatchSink;
  bookmarks: boolean;
}

/**
 * The controller's HTTPS API server: delegated authentication and authorization, Kubernetes-style
 * routing and discovery from a ResourceRegistry, and watch streams that send the same pre-encoded
 * frames to every watcher. It serves no resources itself: handlers are registered in the registry.
 */
export class ApiServer {
  readonly livez = new HealthChecks('livez');
  readonly readyz = new HealthChecks('readyz');
  readonly metrics: ApiServerMetrics;
  readonly #log: Logger;
  readonly #opts: ApiServerOptions;
  readonly #clock: Clock;
  readonly #codecs: readonly ApiCodec[];
  readonly #tokens: TokenAuthenticator;
  readonly #authorizer: Authorizer;
  readonly #frames = new FrameCache();
  readonly #watches = new Set<ActiveWatch>();
  #server: Http2SecureServer | undefined;
  /** Open TLS connections, for shutdown. */
  readonly #sockets = new Set<TLSSocket>();
  /** Requests in flight per connection (HTTP/1.1 socket or HTTP/2 session), to find idle ones. */
  readonly #inFlight = new Map<TLSSocket | Http2Session, number>();
  #tickTimer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void)[] = [];
  #stopping: Promise<void> | undefined;

  constructor(options: ApiServerOptions) {
    this.#log = options.logger.child({ component: 'apiserver' });
    this.#opts = options;
    this.#clock = options.clock ?? systemClock;
    this.#codecs = options.codecs ?? [jsonCodec];
    this.metrics = new ApiServerMetrics(options.metricsRegistry, () => this.#queueDepth());
    this.#tokens = new TokenAuthenticator({
      reviewer: options.tokenReviewer,
      clock: this.#clock,
      ...options.authentication,
      onCache: (hit) => this.metrics.authnCache.inc({ result: hit ? 'hit' : 'miss' }),
    });
    this.#authorizer = new Authorizer({
      reviewer: options.accessReviewer,
      clock: this.#clock,
      ...options.authorization,
      onCache: (hit) => this.metrics.authzCache.inc({ result: hit ? 'hit' : 'miss' }),
    });
    this.livez.add('ping', () => true);
    this.readyz.add('ping', () => true);
  }

  /** Bound address once started. */
  get address(): { host: string; port: number } {
    const a = this.#server?.address() as AddressInfo | null | undefined;
    if (!a) throw new ApiServerError('APISERVER_LISTEN_FAILED', 'server is not listening');
    return { host: a.address, port: a.port };
  }

  /** Open watches (tests and diagnostics). */
  get watchCount(): number {
    return this.#watches.size;
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.#server) return;
    this.#stopping = undefined;
    const server = createSecureServer(
      {
        ...this.#secureContext(),
        // Client certificates are optional (tokens are the common case) and verified per request
        // against the CAs of the moment, so the handshake never rejects on its own.
        requestCert: true,
        rejectUnauthorized: false,
        minVersion: 'TLSv1.2',
        // HTTP/2 lets an agent's watches share one connection, as client-go does with
        // kube-apiserver; HTTP/1.1 stays available for everything else.
        allowHTTP1: true,
        settings: { maxConcurrentStreams: 1000 },
      },
      (rawReq, rawRes) => {
        const req = rawReq as unknown as HttpRequest;
        const res = rawRes as unknown as HttpResponse;
        this.#track(req, res);
        this.#handle(req, res).catch((error: unknown) => {
          this.#log.error({ err: error }, 'request handling failed');
          if (!res.headersSent) this.#sendError(res, ApiError.internal());
          else res.destroy();
        });
      },
    );
    server.on('secureConnection', (socket: TLSSocket) => {
      socket.setKeepAlive(true, 30_000);
      this.#sockets.add(socket);
      socket.once('close', () => {
        this.#sockets.delete(socket);
        this.#inFlight.delete(socket);
      });
    });
    server.on('session', (session: Http2Session) => {
      session.once('close', () => this.#inFlight.delete(session));
    });
    server.on('tlsClientError', (error) => this.#log.debug({ err: error }, 'TLS handshake failed'));
    this.#server = server;
    const refresh = () => server.setSecureContext(this.#secureContext());
    this.#unsubscribe.push(
      this.#opts.certificates.onChange(() => {
        refresh();
        // Idle keep-alive connections reconnect and so verify the new certificate; busy ones
        // (watches) are left alone: cutting them would make every agent re-list.
        this.#closeIdleConnections();
      }),
    );
    if (this.#opts.authenticationConfig)
      this.#unsubscribe.push(this.#opts.authenticationConfig.onChange(refresh));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) =>
        reject(
          new ApiServerError('APISERVER_LISTEN_FAILED', `listen failed: ${error.message}`, { cause: error }),
        ),
      );
      server.listen(this.#opts.port ?? CONTROLLER_API_PORT, this.#opts.host ?? '0.0.0.0', () => resolve());
    });
    this.#tickTimer = setInterval(() => this.tick(), this.#opts.watch?.tickMs ?? 1000);
    this.#tickTimer.unref();
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.#log.info(this.address, 'API server listening');
  }

  /** Ends every watch cleanly, then closes the listener and its connections. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      if (this.#tickTimer) clearInterval(this.#tickTimer);
      this.#tickTimer = undefined;
      for (const u of this.#unsubscribe) u();
      this.#unsubscribe = [];
      for (const w of [...this.#watches]) w.stream.close('server');
      const server = this.#server;
      this.#server = undefined;
      if (server) {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // end() lets the watches' final bytes (and terminating chunks) leave before the FIN;
        // whatever has not closed after the grace period is cut.
        const sockets = [...this.#sockets];
        const allClosed = Promise.all(
          sockets.map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()))),
        );
        for (const socket of sockets) socket.end();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          allClosed,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, this.#opts.shutdownGraceMs ?? 1000);
          }),
        ]);
        clearTimeout(timer);
        for (const socket of this.#sockets) socket.destroy();
        this.#sockets.clear();
        this.#inFlight.clear();
        await closed;
      }
    })();
    return this.#stopping;
  }

  #track(req: HttpRequest, res: HttpResponse): void {
    const conn = (req.stream?.session ?? req.socket) as TLSSocket | Http2Session;
    this.#inFlight.set(conn, (this.#inFlight.get(conn) ?? 0) + 1);
    res.once('close', () => {
      const n = (this.#inFlight.get(conn) ?? 1) - 1;
      // Only connections still open are tracked; a closed one was removed by its close handler.
      if (this.#inFlight.has(conn)) this.#inFlight.set(conn, n);
    });
  }

  /** Closes connections with no request in flight (HTTP/2: GOAWAY, then close). */
  #closeIdleConnections(): void {
    for (const [conn, n] of this.#inFlight) {
      if (n > 0) continue;
      this.#inFlight.delete(conn);
      if ('goaway' in conn) conn.close();
      else conn.destroy();
    }
  }

  /** Deadlines, stalled sockets and bookmarks for every watch; start() runs it on a timer. */
  tick(): void {
    const now = this.#clock.now();
    const interval = this.#opts.watch?.bookmarkIntervalMs ?? 60_000;
    for (const w of this.#watches) {
      w.stream.tick();
      if (w.stream.closed || !w.bookmarks || !w.handle?.bookmark) continue;
      if (w.stream.queuedFrames === 0 && now - w.stream.lastSendAt >= interval) {
        const bookmark = w.handle.bookmark();
        if (bookmark) w.sink.send('BOOKMARK', bookmark);
      }
    }
  }

  #secureContext(): { cert: string; key: string; ca: string[] } {
    const cert: ServingCertificate = this.#opts.certificates.current();
    const authn = this.#authnConfig();
    const cas = [...authn.requestHeaderCAs, ...authn.clientCAs].map((c) => c.toString());
    // The CertificateRequest lists these names; Go clients only send a certificate from one of
    // them, and with no list at all Node would advertise its public root store instead.
    return { cert: cert.certPem, key: cert.keyPem, ca: cas.length > 0 ? cas : [cert.caBundlePem] };
  }

  #authnConfig(): AuthenticationConfig {
    return this.#opts.authenticationConfig?.current() ?? EMPTY_AUTHENTICATION_CONFIG;
  }

  #queueDepth(): { frames: number; bytes: number; maxFrames: number; maxBytes: number } {
    let frames = 0;
    let bytes = 0;
    let maxFrames = 0;
    let maxBytes = 0;
    for (const w of this.#watches) {
      frames += w.stream.queuedFrames;
      bytes += w.stream.queuedBytes;
      maxFrames = Math.max(maxFrames, w.stream.queuedFrames);
      maxBytes = Math.max(maxBytes, w.stream.queuedBytes);
    }
    return { frames, bytes, maxFrames, maxBytes };
  }

  async #handle(req: HttpRequest, res: HttpResponse): Promise<void> {
    const started = this.#clock.now();
    const url = new URL(req.url ?? '/', 'https://localhost');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const info = resolveRequestInfo(method, path, url.searchParams);
    const labels = metricLabels(info, this.#opts.registry);
    const log = this.#log.child({ requestId: randomUUID(), method, path });
    res.once('finish', () => {
      log.debug({ status: res.statusCode, ms: this.#clock.now() - started }, 'request done');
      if (info.verb === 'watch') return;
      this.metrics.requests.inc({ ...labels, code: String(res.statusCode) });
      this.metrics.requestDuration.observe(labels, (this.#clock.now() - started) / 1000);
    });
    try {
      const endpoint = this.#opts.endpoints?.get(path);
      if (endpoint) return await this.#plain(req, res, endpoint);
      const user = await authenticateAndAuthorize(
        this.#authorizer,
        info,
        () => this.#authenticate(req, log),
        log,
      );
      await this.#route(req, res, url, info, user, log);
    } catch (error) {
      let apiError: ApiError;
      if (error instanceof ApiError) apiError = error;
      else {
        log.error({ err: error }, 'handler failed');
        apiError = ApiError.internal();
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      this.#sendError(res, apiError);
      if (info.verb === 'watch') this.metrics.requests.inc({ ...labels, code: String(apiError.code) });
    }
  }

  /** Union authentication in kube's order: front proxy / client certificate, then bearer token. */
  async #authenticate(req: HttpRequest, log: Logger): Promise<UserInfo | undefined> {
    const socket = req.socket as TLSSocket;
    const peer =
      typeof socket.getPeerX509Certificate === 'function' ? socket.getPeerX509Certificate() : undefined;
    const fromCert = authenticateClientCert(
      peer,
      headersDistinct(req.rawHeaders),
      this.#authnConfig(),
      this.#clock.now(),
    );
    if (fromCert) {
      this.metrics.authentications.inc({ result: fromCert.authenticatedBy });
      return fromCert;
    }
    const { user, result } = await authenticateBearerToken(
      req.headers.authorization,
      (token) => this.#tokens.authenticate(token),
      log,
    );
    this.metrics.authentications.inc({ result });
    return user;
  }

  async #route(
    req: HttpRequest,
    res: HttpResponse,
    url: URL,
    info: RequestInfo,
    user: UserInfo,
    log: Logger,
  ): Promise<void> {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (!info.isResourceRequest) {
      const [first, second, third, fourth] = path.split('/').slice(1);
      if (first === 'livez' || first === 'readyz' || first === 'healthz') {
        return this.#health(res, first === 'livez' ? this.livez : this.readyz, second, url, log);
      }
      if (info.verb !== 'get' && info.verb !== 'head')
        throw ApiError.methodNotAllowed(req.method ?? '', path);
      if (path === '/metrics' && info.verb === 'get') {
        const body = await this.#opts.metricsRegistry.metrics();
        res.writeHead(200, { 'content-type': this.#opts.metricsRegistry.contentType });
        res.end(body);
        return;
      }
      if (first === 'apis' && fourth === undefined) {
        const registry = this.#opts.registry;
        const doc =
          second === undefined
            ? registry.apiGroupList()
            : third === undefined
              ? registry.apiGroup(second)
              : registry.apiResourceList(second, third);
        if (!doc) throw ApiError.pathNotFound();
        // Discovery is JSON only: the protobuf codec covers the controlplane types, not these.
        const json = negotiate(req.headers.accept, [jsonCodec]);
        if (!json) throw ApiError.notAcceptable([jsonCodec.mediaType]);
        return this.#sendObject(req, res, json, 200, doc);
      }
      throw ApiError.pathNotFound();
    }
    return this.#dispatch(req, res, url, info, user, log);
  }

  async #health(
    res: HttpResponse,
    checks: HealthChecks,
    only: string | undefined,
    url: URL,
    log: Logger,
  ): Promise<void> {
    if (only !== undefined && !checks.has(only)) throw ApiError.pathNotFound();
    const report = await checks.run({
      ...(only !== undefined ? { only } : {}),
      verbose: url.searchParams.has('verbose'),
      exclude: url.searchParams.getAll('exclude'),
    });
    for (const f of report.failed)
      log.warn({ check: f.name, err: f.error }, `${checks.endpoint} check failed`);
    res.writeHead(report.status, {
      'content-type': 'text/plain; charset=utf-8',
      'x-content-type-options': 'nosniff',
    });
    res.end(report.body);
  }

  async #dispatch(
    req: HttpRequest,
    res: HttpResponse,
    url: URL,
    info: ResourceRequestInfo,
    user: UserInfo,
    log: Logger,
  ): Promise<void> {
    const def = this.#opts.registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (!def) throw ApiError.pathNotFound();
    if (info.namespace !== '' && !def.namespaced) throw ApiError.pathNotFound();
    const target = resolveTarget(def, info);
    if (!target) throw ApiError.pathNotFound();
    if (!target.verbs.includes(info.verb)) {
      throw ApiError.methodNotAllowed(
        req.method ?? '',
        `${info.resource}${info.subresource ? `/${info.subresource}` : ''}`,
      );
    }
    if (def.namespaced && info.namespace === '' && info.name !== '') throw ApiError.pathNotFound();
    const codec = negotiate(req.headers.accept, this.#codecs);
    if (!codec) throw ApiError.notAcceptable(this.#codecs.map((c) => c.mediaType));
    const options = parseListOptions(url.searchParams);
    const abort = new AbortController();
    res.once('close', () => abort.abort());
    const request: ApiRequest = { info, user, options, signal: abort.signal };
    const handler = target.handler;
    switch (info.verb) {
      case 'list':
        return this.#sendObject(req, res, codec, 200, await handler.list!(request));
      case 'get': {
        const out = await handler.get!(request);
        if (out instanceof RawResponse) {
          res.writeHead(200, { 'content-type': out.contentType, 'content-length': out.body.length });
          res.end(req.method === 'HEAD' ? undefined : out.body);
          return;
        }
        return this.#sendObject(req, res, codec, 200, out);
      }
      case 'create': {
        request.body = await this.#readBody(req);
        return this.#sendObject(req, res, codec, 201, await handler.create!(request));
      }
      case 'watch':
        return this.#watch(res, request, codec, handler, log);
      default:
        throw ApiError.methodNotAllowed(req.method ?? '', info.resource);
    }
  }

  /** The whole request body; 413 beyond maxBodyBytes. */
  async #readRawBody(req: HttpRequest): Promise<Buffer> {
    const limit = this.#opts.maxBodyBytes ?? 3 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  async #plain(req: HttpRequest, res: HttpResponse, endpoint: PlainEndpoint): Promise<void> {
    const out = await endpoint({
      method: req.method ?? 'GET',
      contentType: req.headers['content-type'],
      body: await this.#readRawBody(req),
    });
    res.writeHead(out.status, { 'content-type': out.contentType });
    res.end(out.body);
  }

  async #readBody(req: HttpRequest): Promise<unknown> {
    const codec = codecForContentType(req.headers['content-type'], this.#codecs);
    if (!codec?.decode) throw ApiError.unsupportedMediaType(req.headers['content-type'] ?? '');
    const body = await this.#readRawBody(req);
    try {
      return codec.decode(body);
    } catch {
      throw ApiError.badRequest('the request body could not be decoded');
    }
  }

  async #watch(
    res: HttpResponse,
    request: ApiRequest,
    codec: ApiCodec,
    handler: ResourceHandler,
    log: Logger,
  ): Promise<void> {
    const { info, options } = request;
    const minTimeout = this.#opts.watch?.minRequestTimeoutSeconds ?? 1800;
    const timeoutSeconds = options.timeoutSeconds ?? minTimeout * (1 + (this.#opts.random ?? Math.random)());
    const resource = info.resource;
    const gauge = { group: info.apiGroup, version: info.apiVersion, resource };
    res.statusCode = 200;
    res.setHeader('content-type', codec.streamContentType);
    res.setHeader('cache-control', 'no-cache, private');
    const stream = new WatchStream(frameTarget(res), {
      clock: this.#clock,
      ...(this.#opts.watch?.limits ? { limits: this.#opts.watch.limits } : {}),
      timeoutMs: timeoutSeconds * 1000,
      observer: {
        sent: (bytes) => this.metrics.watchBytesSent.inc({ resource }, bytes),
        closed: (reason) => {
          this.metrics.watchersClosed.inc({ resource, reason });
          if (reason === 'slow') log.info({ user: request.user.username }, 'watcher too slow, disconnected');
        },
      },
    });
    const frames = this.#frames;
    const metrics = this.metrics;
    const sink: WatchSink = {
      codec,
      send(type, object) {
        if (stream.closed) return false;
        metrics.watchEventsSent.inc({ resource });
        return stream.send(frames.frame(codec, type, object));
      },
      sendFrame(frame) {
        if (stream.closed) return false;
        metrics.watchEventsSent.inc({ resource });
        return stream.send(frame);
      },
      get closed() {
        return stream.closed;
      },
      signal: stream.signal,
      close: () => stream.close('server'),
    };
    const active: ActiveWatch = { stream, handle: undefined, sink, bookmarks: options.allowWatchBookmarks };
    this.#watches.add(active);
    this.metrics.watchers.inc(gauge);
    stream.signal.addEventListener(
      'abort',
      () => {
        if (!this.#watches.delete(active)) return;
        this.metrics.watchers.dec(gauge);
        this.metrics.requests.inc({ ...metricLabels(info, this.#opts.registry), code: '200' });
      },
      { once: true },
    );
    // 'close' on the response also covers the connection going away; a socket listener would
    // pile up on keep-alive connections that carry watch after watch.
    let disposed = false;
    res.once('close', () => {
      if (!disposed) stream.close('client');
    });
    try {
      active.handle = (await handler.watch!({ ...request, signal: stream.signal }, sink)) ?? undefined;
    } catch (error) {
      if (!res.headersSent && !stream.closed) {
        // Nothing was sent yet: the client gets a plain error response (e.g. 410 Expired) and the
        // connection stays usable.
        disposed = true;
        this.#watches.delete(active);
        this.metrics.watchers.dec(gauge);
        res.removeHeader('cache-control');
        throw error;
      }
      const status = error instanceof ApiError ? error : ApiError.internal();
      if (!(error instanceof ApiError)) log.error({ err: error }, 'watch handler failed');
      sink.send('ERROR', status.toStatus() as unknown as ApiObject);
      stream.close('server');
      return;
    }
    // Send the 200 and headers now so the client knows the watch is established before any event.
    if (!stream.closed && !res.headersSent) {
      if (res.flushHeaders) res.flushHeaders();
      else res.write(new Uint8Array(0));
    }
  }

  #sendObject(req: HttpRequest, res: HttpResponse, codec: ApiCodec, status: number, object: ApiObject): void {
    const body = codec.encode(object);
    res.writeHead(status, { 'content-type': codec.mediaType, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  #sendError(res: HttpResponse, error: ApiError): void {
    const body = Buffer.from(JSON.stringify(error.toStatus()));
    res.writeHead(error.code, { ...statusErrorHeaders(error), 'content-length': body.length });
    res.end(body);
  }
}

/**
 * The response as a watch writes to it. Dropping a slow HTTP/2 watcher resets only its stream
 * (CANCEL), so the agent's other watches on the same connection carry on; on HTTP/1.1 the
 * connection is the stream.
 */
function frameTarget(res: HttpResponse): FrameTarget {
  const h2 = (res as { stream?: { close(code: number): void } }).stream;
  return {
    write: (chunk) => res.write(chunk),
    once: (event, listener) => res.once(event, listener),
    end: () => res.end(),
    destroy: () => (h2 ? h2.close(http2Constants.NGHTTP2_CANCEL) : res.destroy()),
    ...(res.cork && res.uncork ? { cork: () => res.cork!(), uncork: () => res.uncork!() } : {}),
  };
}

function resolveTarget(
  def: ResourceDefinition,
  info: ResourceRequestInfo,
): { verbs: readonly Verb[]; handler: ResourceHandler } | undefined {
  if (info.subresource === '') return def;
  if (info.name === '') return undefined;
  return def.subresources?.find((s) => s.name === info.subresource);
}

function metricLabels(
  info: RequestInfo,
  registry: ResourceRegistry,
): {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
} {
  if (!info.isResourceRequest) {
    // Non-resource paths: discovery of served groups keeps its path; anything else is labelled
    // by a fixed first segment, or 'other'.
    const [, first = '', group, version] = info.path.split('/');
    let path = 'other';
    if (first === 'apis' && (group === undefined || registry.hasGroupVersion(group, version)))
      path = info.path;
    else if (['livez', 'readyz', 'healthz', 'metrics'].includes(first)) path = `/${first}`;
    return { verb: info.verb.toUpperCase(), group: '', version: '', resource: path, subresource: '' };
  }
  // Label values come from the registry, never straight from the URL: a caller probing made-up
  // paths (even unauthenticated) must not grow the metric set.
  const def = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
  const sub =
    info.subresource && def?.subresources?.some((s) => s.name === info.subresource) ? info.subresource : '';
  return {
    verb: info.verb.toUpperCase(),
    group: def ? info.apiGroup : '',
    version: def ? info.apiVersion : '',
    resource: def ? info.resource : 'other',
    subresource: def && info.subresource && !sub ? 'other' : sub,
  };
}
