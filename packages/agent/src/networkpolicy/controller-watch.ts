import { constants as h2 } from 'node:http2';
import { CONTENT_TYPE_PROTOBUF, decodeControlplaneWatchEvent, WatchFrameDecoder } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { ControllerConnection } from './controller-connection.js';

export const POLICY_RESOURCES = ['networkpolicies', 'appliedtogroups', 'addressgroups'] as const;
export type PolicyResource = (typeof POLICY_RESOURCES)[number];

const BASE = '/apis/controlplane.antrea.io/v1beta2';

/** Where watch events go. Objects are decoded controlplane objects (or patches for MODIFIED groups). */
export interface ControllerWatchSink<R extends string> {
  /** The complete state of one resource, at the BOOKMARK that ends its initial events. */
  replace(resource: R, objects: readonly unknown[]): void;
  /** One event after the initial state. */
  apply(resource: R, type: 'ADDED' | 'MODIFIED' | 'DELETED', name: string, object: unknown): void;
  /** The watch of one resource ended; what is installed stays until the next replace. */
  lost(resource: R): void;
}

export type PolicyWatchSink = ControllerWatchSink<PolicyResource>;

export interface ControllerWatchOptions<R extends string = PolicyResource> {
  readonly node: string;
  readonly connection: ControllerConnection;
  readonly sink: ControllerWatchSink<R>;
  /** The controlplane.antrea.io resources to watch; the three policy resources by default. */
  readonly resources?: readonly R[];
  readonly logger: Logger;
  /** Delay before watching again after a watch ended; doubled up to maxRetryMs. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

/**
 * The agent's protobuf watches on antrea-controller with fieldSelector nodeName=<node>: the three
 * policy resources (Antrea pkg/agent/controller/networkpolicy/networkpolicy_controller.go), and
 * supportbundlecollections for the collection agent. There is no resume from
 * a resourceVersion: every (re)connect receives the whole state again as ADDED events, which are
 * buffered and handed over at the BOOKMARK so the consumer can replace its state in one step.
 */
export class ControllerWatch<R extends string = PolicyResource> {
  private readonly log: Logger;
  private readonly streams = new Set<{ close(code?: number): void }>();
  private stopped = true;
  private readonly failures = new Map<R, number>();

  constructor(private readonly options: ControllerWatchOptions<R>) {
    this.log = options.logger.child({ component: 'controller-watch' });
  }

  start(signal?: AbortSignal): void {
    if (!this.stopped) return;
    this.stopped = false;
    signal?.addEventListener('abort', () => this.stop(), { once: true });
    const resources = this.options.resources ?? (POLICY_RESOURCES as readonly string[] as readonly R[]);
    for (const r of resources) void this.watch(r);
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.streams) s.close(h2.NGHTTP2_CANCEL);
    this.streams.clear();
  }

  private async watch(resource: R): Promise<void> {
    if (this.stopped) return;
    let req: ReturnType<Awaited<ReturnType<ControllerConnection['session']>>['request']>;
    try {
      const token = await this.options.connection.token();
      const session = await this.options.connection.session();
      if (this.stopped) return;
      req = session.request({
        ':path': `${BASE}/${resource}?watch=true&fieldSelector=${encodeURIComponent(`nodeName=${this.options.node}`)}`,
        accept: `${CONTENT_TYPE_PROTOBUF}, application/json`,
        authorization: `Bearer ${token}`,
      });
    } catch (err) {
      this.log.warn({ err, resource }, 'cannot watch the controller; retrying');
      this.retry(resource);
      return;
    }
    this.streams.add(req);
    const decoder = new WatchFrameDecoder();
    const buffered = new Map<string, unknown>();
    let initial = true;
    let status = 0;
    req.on('response', (headers) => {
      status = Number(headers[':status']);
      if (status !== 200) this.log.warn({ resource, status }, 'controller refused the watch');
    });
    req.on('data', (chunk: Buffer) => {
      if (status !== 200) return;
      try {
        for (const raw of decoder.push(chunk)) {
          const ev = decodeControlplaneWatchEvent(raw);
          const name = (ev.object as { metadata?: { name?: string } }).metadata?.name ?? '';
          if (ev.type === 'BOOKMARK') {
            if (initial) {
              initial = false;
              this.failures.delete(resource);
              this.options.sink.replace(resource, [...buffered.values()]);
              buffered.clear();
            }
          } else if (ev.type === 'ERROR') {
            this.log.warn({ resource, status: ev.object }, 'watch error event');
            req.close(h2.NGHTTP2_CANCEL);
          } else if (initial && ev.type === 'ADDED') {
            buffered.set(name, ev.object);
          } else if (initial && ev.type === 'DELETED') {
            buffered.delete(name);
          } else {
            this.options.sink.apply(resource, ev.type, name, ev.object);
          }
        }
      } catch (err) {
        this.log.error({ err, resource }, 'undecodable watch event; re-watching');
        req.close(h2.NGHTTP2_CANCEL);
      }
    });
    req.on('error', (err) => this.log.debug({ err, resource }, 'watch stream error'));
    req.on('close', () => {
      this.streams.delete(req);
      if (this.stopped) return;
      this.log.info({ resource }, 'watch ended; keeping what it installed and re-watching');
      this.options.sink.lost(resource);
      this.retry(resource);
    });
    req.end();
  }

  private retry(resource: R): void {
    if (this.stopped) return;
    const n = (this.failures.get(resource) ?? 0) + 1;
    this.failures.set(resource, n);
    const base = this.options.retryMs ?? 500;
    const delay = Math.min(this.options.maxRetryMs ?? 10_000, base * 2 ** Math.min(n - 1, 10));
    setTimeout(() => void this.watch(resource), delay).unref();
  }
}
