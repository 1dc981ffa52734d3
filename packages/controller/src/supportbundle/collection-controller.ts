// The controller half of SupportBundleCollection (Antrea pkg/controller/supportbundlecollection):
// each collection not yet completed nor expired becomes an internal object spanning its target
// Nodes, with the file server's credentials read from the referenced Secret; agents receive it
// through controlplane.antrea.io supportbundlecollections (fieldSelector nodeName=), collect,
// upload, and report per Node through the status subresource; the controller turns the reports
// into the CR's status. A pass runs on every CR event (when the API offers a watch) and on every
// agent report, so a new collection reaches the agents at once; it also runs every resyncMs for
// expiry and for whatever a failed pass left undone.
import { DEFAULT_BUNDLE_EXPIRATION_MINUTES, type SupportBundleCollectionStatus } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import { RamStore, type SpannedObject } from '../store/ram-store.js';
import { collectionStatus, type NodeReport, selectExternalNodes, selectNodes } from './collection-status.js';
import type { CollectionApi } from './kube-collection-api.js';

/** Credentials as agents receive them (controlplane BundleServerAuthConfiguration). */
export interface BundleAuth {
  authType?: string;
  bearerToken?: string;
  apiKey?: string;
  basicAuthentication?: { username: string; password: string };
}

export interface InternalSupportBundleCollection extends SpannedObject {
  readonly uid: string;
  readonly expiredAt: string;
  readonly sinceTime?: string;
  readonly fileServer: { url: string; hostPublicKey?: string };
  readonly authentication: BundleAuth;
}

/** What an agent reports (controlplane SupportBundleCollectionStatus). */
export interface CollectionNodeStatus {
  metadata?: { name?: string };
  nodes?: {
    nodeName: string;
    nodeNamespace?: string;
    nodeType?: string;
    completed: boolean;
    error?: string;
  }[];
}

export interface CollectionControllerOptions {
  readonly api: CollectionApi;
  readonly logger: Logger;
  readonly now?: () => Date;
  readonly resyncMs?: number;
}

const completed = (s: SupportBundleCollectionStatus | undefined) =>
  s?.conditions?.some((c) => c.type === 'Completed' && c.status === 'True') ?? false;

/** The Secret keys Antrea reads per authType. */
function authFrom(type: string | undefined, data: Record<string, string> | undefined): BundleAuth {
  if (!data) return { ...(type ? { authType: type } : {}) };
  switch (type) {
    case 'BearerToken':
      return { authType: type, bearerToken: data['token'] ?? '' };
    case 'APIKey':
      return { authType: type, apiKey: data['apikey'] ?? '' };
    case 'BasicAuthentication':
      return {
        authType: type,
        basicAuthentication: { username: data['username'] ?? '', password: data['password'] ?? '' },
      };
    default:
      return {};
  }
}

export class SupportBundleCollectionController {
  readonly store = new RamStore<InternalSupportBundleCollection>('SupportBundleCollection');
  readonly #log: Logger;
  readonly #now: () => Date;
  /** Per collection (by uid): desired targets, reports so far, last status written. */
  readonly #state = new Map<
    string,
    {
      name: string;
      desired: string[];
      reports: Map<string, NodeReport>;
      status?: SupportBundleCollectionStatus;
    }
  >();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  /** Something changed during the running pass: run another after it. */
  #again = false;
  #stopWatching: (() => Promise<void>) | undefined;
  #failing = false;

  constructor(private readonly opts: CollectionControllerOptions) {
    this.#log = opts.logger.child({ component: 'supportbundlecollection-controller' });
    this.#now = opts.now ?? (() => new Date());
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#kick(), this.opts.resyncMs ?? 2000);
    this.#timer.unref();
    this.#stopWatching = this.opts.api.watchCollections?.(
      () => this.#kick(),
      (err) => this.#log.debug({ err }, 'SupportBundleCollection watch failed; restarting'),
    );
    this.#kick();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#stopWatching?.();
    this.#stopWatching = undefined;
    await this.#running;
  }

  /** Runs a pass now, or right after the running one; nothing once stopped. */
  #kick(): void {
    if (!this.#timer) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.sync()
      .then(() => {
        this.#failing = false;
      })
      .catch((err: unknown) => {
        // Once per outage (e.g. no RBAC for the CRD): the pass repeats every resyncMs.
        if (!this.#failing) this.#log.warn({ err }, 'SupportBundleCollection sync failed; retrying');
        this.#failing = true;
      })
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.#kick();
        }
      });
  }

  /** One pass: every collection's internal object and status brought up to date. */
  async sync(): Promise<void> {
    const api = this.opts.api;
    const collections = await api.listCollections();
    const live = new Set<string>();
    let nodes: Awaited<ReturnType<CollectionApi['listNodes']>> | undefined;
    let externalNodes: Awaited<ReturnType<CollectionApi['listExternalNodes']>> | undefined;
    for (const c of collections) {
      const uid = c.metadata?.uid ?? c.metadata?.name ?? '';
      const name = c.metadata?.name ?? '';
      const created = Date.parse(c.metadata?.creationTimestamp ? String(c.metadata.creationTimestamp) : '');
      const expiresAt =
        (Number.isNaN(created) ? this.#now().getTime() : created) +
        (c.spec.expirationMinutes ?? DEFAULT_BUNDLE_EXPIRATION_MINUTES) * 60_000;
      let st = this.#state.get(uid);
      if (completed(c.status) && !st) continue;
      if (!st) {
        nodes ??= await api.listNodes();
        // Listed once per pass, by the first collection that names ExternalNodes.
        if (c.spec.externalNodes) externalNodes ??= await api.listExternalNodes();
        const desired = [
          ...selectNodes(c.spec.nodes, nodes),
          ...selectExternalNodes(c.spec.externalNodes, externalNodes ?? []),
        ];
        st = { name, desired, reports: new Map() };
        // Antrea-TS runs no agent on ExternalNodes: they fail at once, saying so.
        for (const e of desired.filter((d) => d.includes('/'))) {
          st.reports.set(e, {
            completed: false,
            error: 'ExternalNode agents are not supported by Antrea-TS',
          });
        }
        this.#state.set(uid, st);
      }
      if (this.#now().getTime() >= expiresAt) {
        for (const n of st.desired)
          if (!st.reports.has(n)) st.reports.set(n, { completed: false, error: 'collection expired' });
      }
      const done = st.desired.every((n) => st.reports.has(n));
      if (!done) {
        live.add(name);
        const a = c.spec.authentication;
        const data = a?.authSecret
          ? await api.readSecret(a.authSecret.namespace ?? '', a.authSecret.name ?? '')
          : undefined;
        this.#put({
          name,
          uid,
          span: new Set(st.desired.filter((n) => !n.includes('/') && !st.reports.has(n))),
          expiredAt: `${new Date(expiresAt).toISOString().slice(0, 19)}Z`,
          ...(c.spec.sinceTime ? { sinceTime: c.spec.sinceTime } : {}),
          fileServer: {
            url: c.spec.fileServer?.url ?? '',
            ...(c.spec.fileServer?.hostPublicKey ? { hostPublicKey: c.spec.fileServer.hostPublicKey } : {}),
          },
          authentication: authFrom(a?.authType, data),
        });
      }
      await this.#writeStatus(uid, c.status);
    }
    for (const v of this.store.list().items) if (!live.has(v.object.name)) this.store.delete(v.object.name);
    const uids = new Set(collections.map((c) => c.metadata?.uid ?? c.metadata?.name ?? ''));
    for (const uid of this.#state.keys()) if (!uids.has(uid)) this.#state.delete(uid);
  }

  /** An agent's report (supportbundlecollections/{name}/status). */
  report(status: CollectionNodeStatus): void {
    const name = status.metadata?.name ?? '';
    const entry = [...this.#state.values()].find((s) => s.name === name);
    if (!entry) return;
    for (const n of status.nodes ?? []) {
      entry.reports.set(n.nodeName, { completed: n.completed, ...(n.error ? { error: n.error } : {}) });
    }
    // The Node leaves the span: its agent stops seeing the collection.
    const obj = this.store.get(name)?.object;
    if (obj) this.#put({ ...obj, span: new Set([...obj.span].filter((n) => !entry.reports.has(n))) });
    // The CR status follows now rather than at the next resync.
    this.#kick();
  }

  #put(obj: InternalSupportBundleCollection): void {
    const prev = this.store.get(obj.name)?.object;
    const same =
      prev &&
      JSON.stringify({ ...prev, span: [...prev.span].sort() }) ===
        JSON.stringify({ ...obj, span: [...obj.span].sort() });
    if (!same) this.store.put(obj);
  }

  async #writeStatus(uid: string, current: SupportBundleCollectionStatus | undefined): Promise<void> {
    const st = this.#state.get(uid);
    if (!st) return;
    const next = collectionStatus(st.desired, st.reports, this.#now(), st.status ?? current);
    // Field order differs between what we build and what the API returns; times do not count.
    const strip = (s: SupportBundleCollectionStatus | undefined) =>
      JSON.stringify([
        s?.collectedNodes ?? 0,
        s?.desiredNodes ?? 0,
        (s?.conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '']),
      ]);
    if (strip(next) === strip(current)) {
      st.status = current;
      return;
    }
    await this.opts.api.writeStatus(st.name, next);
    st.status = next;
    this.#log.info(
      { collection: st.name, collected: next.collectedNodes, desired: next.desiredNodes },
      'status updated',
    );
  }
}
