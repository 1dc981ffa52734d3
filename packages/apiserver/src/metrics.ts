import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The server's metrics, registered on an injected registry (never prom-client's global one). */
export class ApiServerMetrics {
  readonly requests: Counter<'verb' | 'group' | 'version' | 'resource' | 'subresource' | 'code'>;
  readonly requestDuration: Histogram<'verb' | 'group' | 'version' | 'resource' | 'subresource'>;
  readonly watchers: Gauge<'group' | 'version' | 'resource'>;
  readonly watchEventsSent: Counter<'resource'>;
  readonly watchBytesSent: Counter<'resource'>;
  readonly watchersClosed: Counter<'resource' | 'reason'>;
  readonly authnCache: Counter<'result'>;
  readonly authzCache: Counter<'result'>;
  readonly authentications: Counter<'result'>;

  constructor(
    registry: Registry,
    queueDepth: () => { frames: number; bytes: number; maxFrames: number; maxBytes: number },
  ) {
    const registers = [registry];
    // Names follow kube-apiserver where one exists, so existing dashboards keep working.
    this.requests = new Counter({
      name: 'apiserver_request_total',
      help: 'Requests by verb, resource and HTTP status code.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'code'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'apiserver_request_duration_seconds',
      help: 'Latency of non-watch requests.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.watchers = new Gauge({
      name: 'apiserver_registered_watchers',
      help: 'Open watches by resource.',
      labelNames: ['group', 'version', 'resource'],
      registers,
    });
    this.watchEventsSent = new Counter({
      name: 'antrea_apiserver_watch_events_sent_total',
      help: 'Watch events queued to watchers.',
      labelNames: ['resource'],
      registers,
    });
    this.watchBytesSent = new Counter({
      name: 'antrea_apiserver_watch_bytes_sent_total',
      help: 'Watch frame bytes handed to sockets.',
      labelNames: ['resource'],
      registers,
    });
    this.watchersClosed = new Counter({
      name: 'antrea_apiserver_watchers_closed_total',
      help: 'Watches ended, by reason (client, timeout, slow, server).',
      labelNames: ['resource', 'reason'],
      registers,
    });
    new Gauge({
      name: 'antrea_apiserver_watch_queue_frames',
      help: 'Frames waiting in watcher queues: total and the largest single queue.',
      labelNames: ['stat'],
      registers,
      collect() {
        const d = queueDepth();
        this.set({ stat: 'total' }, d.frames);
        this.set({ stat: 'max' }, d.maxFrames);
      },
    });
    new Gauge({
      name: 'antrea_apiserver_watch_queue_bytes',
      help: 'Bytes waiting in watcher queues: total and the largest single queue.',
      labelNames: ['stat'],
      registers,
      collect() {
        const d = queueDepth();
        this.set({ stat: 'total' }, d.bytes);
        this.set({ stat: 'max' }, d.maxBytes);
      },
    });
    this.authnCache = new Counter({
      name: 'antrea_apiserver_authn_cache_total',
      help: 'Token authentication cache lookups by result (hit, miss).',
      labelNames: ['result'],
      registers,
    });
    this.authzCache = new Counter({
      name: 'antrea_apiserver_authz_cache_total',
      help: 'Authorization cache lookups by result (hit, miss).',
      labelNames: ['result'],
      registers,
    });
    this.authentications = new Counter({
      name: 'antrea_apiserver_authentications_total',
      help: 'Authentication outcomes (token, request-header, client-certificate, anonymous, failed, error).',
      labelNames: ['result'],
      registers,
    });
  }
}
