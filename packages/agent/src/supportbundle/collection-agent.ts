// The agent half of SupportBundleCollection (Antrea pkg/agent/supportbundlecollection): the agent
// watches the collections the controller spans to this Node (controlplane.antrea.io
// supportbundlecollections, fieldSelector nodeName=, the protobuf watch the NetworkPolicy
// controller uses), collects each once with its sinceTime, uploads it, and reports on
// supportbundlecollections/{name}/status. Every (re)connect delivers the whole set again, so a
// collection created while the controller was unreachable is not lost.
import { type CollectedBundle, encodeControlplaneObject } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { ControllerConnection } from '../networkpolicy/controller-connection.js';
import { ControllerWatch, type ControllerWatchSink } from '../networkpolicy/controller-watch.js';
import type { BundleFileServer, BundleServerAuth, BundleUploader } from './bundle-uploader.js';

const RESOURCE = 'supportbundlecollections';
type CollectionResource = typeof RESOURCE;
const BASE = `/apis/controlplane.antrea.io/v1beta2/${RESOURCE}`;

/** A decoded controlplane SupportBundleCollection (the fields the agent reads). */
interface WireCollection {
  metadata: { name: string; uid?: string };
  expiredAt?: string;
  sinceTime?: string;
  fileServer?: Partial<BundleFileServer>;
  authentication?: BundleServerAuth;
}

/**
 * What the agent reports (controlplane SupportBundleCollectionStatus, this Node only); a type, not
 * an interface, so it passes as the codec's open SupportBundleObject.
 */
type CollectionStatus = {
  apiVersion: 'controlplane.antrea.io/v1beta2';
  kind: 'SupportBundleCollectionStatus';
  metadata: { name: string };
  nodes: { nodeName: string; nodeType: 'Node'; completed: boolean; error?: string }[];
};

export interface CollectionAgentOptions {
  readonly node: string;
  readonly connection: ControllerConnection;
  /** Collects this Node's bundle; `secrets` are removed from it like the agent's own. */
  readonly collect: (since: string | undefined, secrets: readonly string[]) => Promise<CollectedBundle>;
  readonly uploader: BundleUploader;
  readonly logger: Logger;
  /** Delay before watching again after the watch ended (doubled up to 10 s), and before re-sending a refused report. */
  readonly retryMs?: number;
  readonly now?: () => Date;
}

const keyOf = (c: WireCollection) => c.metadata.uid ?? c.metadata.name;

/** Collects, uploads and reports each SupportBundleCollection spanning this Node, once per uid. */
export class SupportBundleCollectionAgent implements ControllerWatchSink<CollectionResource> {
  private readonly log: Logger;
  private readonly watch: ControllerWatch<CollectionResource>;
  /** The collections spanning this Node now, by key (uid), as the watch last said. */
  private readonly spanned = new Map<string, WireCollection>();
  /** Collections started (or finished) by this agent run. */
  private readonly done = new Set<string>();
  /** Results the controller has not accepted yet, by collection. */
  private readonly unreported = new Map<string, CollectionStatus>();
  /** Collections run one at a time, in the order the watch announced them. */
  private work: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(private readonly o: CollectionAgentOptions) {
    this.log = o.logger.child({ component: 'supportbundlecollection' });
    this.watch = new ControllerWatch({
      node: o.node,
      connection: o.connection,
      sink: this,
      resources: [RESOURCE],
      logger: o.logger,
      ...(o.retryMs !== undefined ? { retryMs: o.retryMs } : {}),
    });
  }

  start(signal?: AbortSignal): void {
    if (!this.stopped) return;
    this.stopped = false;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.watch.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch.stop();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.work;
  }

  /** The whole set after a (re)connect: a collection no longer spanned here is finished, so forget it. */
  replace(_resource: CollectionResource, objects: readonly unknown[]): void {
    const items = objects as readonly WireCollection[];
    const keys = new Set(items.map(keyOf));
    for (const k of [...this.spanned.keys(), ...this.done, ...this.unreported.keys()]) {
      if (!keys.has(k)) this.forget(k);
    }
    for (const c of items) this.announce(c);
  }

  apply(
    _resource: CollectionResource,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    name: string,
    object: unknown,
  ): void {
    const c = object as WireCollection;
    if (type !== 'DELETED') {
      this.announce(c);
      return;
    }
    for (const [k, known] of this.spanned) if (known.metadata.name === name) this.forget(k);
  }

  /** Nothing to undo: what runs keeps running, and the next replace says what is still spanned. */
  lost(): void {}

  private forget(key: string): void {
    this.spanned.delete(key);
    this.done.delete(key);
    this.unreported.delete(key);
  }

  private announce(c: WireCollection): void {
    const key = keyOf(c);
    this.spanned.set(key, c);
    if (this.done.has(key)) return;
    this.done.add(key);
    this.enqueue(async () => {
      // Deleted or no longer spanned while queued: nothing to collect for.
      if (this.stopped || !this.spanned.has(key)) return;
      await this.report(key, await this.process(c));
    });
  }

  private enqueue(job: () => Promise<void>): void {
    this.work = this.work
      .then(job)
      .catch((err: unknown) => this.log.warn({ err }, 'SupportBundleCollection handling failed'));
  }

  /**
   * Posts a result in protobuf, as Antrea's agent does (the connection's request timeout bounds a
   * controller that never answers); a refused or unanswered one is kept and sent again after retryMs.
   */
  private async report(key: string, status: CollectionStatus): Promise<void> {
    const name = status.metadata.name;
    const code = await this.o.connection
      .post(
        `${BASE}/${encodeURIComponent(name)}/status`,
        encodeControlplaneObject('SupportBundleCollectionStatus', status),
      )
      .catch(() => 0);
    if (code >= 200 && code < 300) {
      this.unreported.delete(key);
      return;
    }
    // Forgotten meanwhile (deleted, or out of the span): the collection is over, its report with it.
    if (!this.spanned.has(key)) return;
    this.log.warn({ collection: name, status: code }, 'reporting the collection status failed; retrying');
    this.unreported.set(key, status);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.enqueue(async () => {
        for (const [key, status] of [...this.unreported]) {
          // Forgotten while waiting: the collection is over, its report with it.
          if (!this.stopped && this.unreported.get(key) === status) await this.report(key, status);
        }
      });
    }, this.o.retryMs ?? 2000);
    this.retryTimer.unref();
  }

  /** Collects and uploads; returns the status to report. */
  private async process(c: WireCollection): Promise<CollectionStatus> {
    const name = c.metadata.name;
    const now = (this.o.now ?? (() => new Date()))();
    let error: string | undefined;
    if (c.expiredAt && Date.parse(c.expiredAt) <= now.getTime())
      error = 'collection expired before it started';
    else {
      try {
        const auth = c.authentication ?? {};
        const secrets = [auth.bearerToken, auth.apiKey, auth.basicAuthentication?.password].filter(
          (s): s is string => !!s,
        );
        const bundle = await this.o.collect(c.sinceTime, secrets);
        const { url = '', hostPublicKey } = c.fileServer ?? {};
        await this.o.uploader.upload(
          { url, ...(hostPublicKey ? { hostPublicKey } : {}) },
          auth,
          `${this.o.node}_${name}.tar.gz`,
          bundle.archive,
        );
        this.log.info({ collection: name, bytes: bundle.archive.length }, 'support bundle uploaded');
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
        this.log.warn({ collection: name, err }, 'support bundle collection failed');
      }
    }
    return {
      apiVersion: 'controlplane.antrea.io/v1beta2',
      kind: 'SupportBundleCollectionStatus',
      metadata: { name },
      nodes: [
        {
          nodeName: this.o.node,
          nodeType: 'Node',
          completed: error === undefined,
          ...(error ? { error } : {}),
        },
      ],
    };
  }
}
