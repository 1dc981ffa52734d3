// The system.antrea.io/v1beta1 SupportBundle resource as both antrea-agent and antrea-controller
// serve it: one bundle per component, named after the component ("agent" / "controller").
// create starts a collection (cancelling one in progress), get reports the status, download
// returns the archive while it has not expired (one hour, as in Antrea), delete forgets it.
// Collection itself is injected; this module holds only the state, with an injected clock.

export const SUPPORT_BUNDLE_API_VERSION = 'system.antrea.io/v1beta1';
export const SUPPORT_BUNDLE_CONTENT_TYPE = 'application/tar+gz';
export const SUPPORT_BUNDLE_EXPIRY_MS = 60 * 60 * 1000;

export type SupportBundleStatus = 'None' | 'Collecting' | 'Collected';
export type SupportBundleComponent = 'agent' | 'controller';

/** The wire object (Antrea's systemv1beta1.SupportBundle, JSON). */
export interface SupportBundleObject {
  apiVersion: typeof SUPPORT_BUNDLE_API_VERSION;
  kind: 'SupportBundle';
  metadata: { name: string; creationTimestamp?: string; deletionTimestamp?: string };
  status: SupportBundleStatus;
  sum?: string;
  size?: number;
  filepath?: string;
  since?: string;
}

/** A finished archive. */
export interface CollectedBundle {
  readonly archive: Buffer;
  /** Hex SHA-256 of the archive. */
  readonly sum: string;
}

export type BundleCollector = (since: string | undefined, signal: AbortSignal) => Promise<CollectedBundle>;

export class SupportBundleState {
  private object: SupportBundleObject;
  private archive: Buffer | undefined;
  private expiresAt = 0;
  private running: AbortController | undefined;
  /** The collection in progress, for tests and graceful stop. */
  private pending: Promise<void> | undefined;

  constructor(
    readonly component: SupportBundleComponent,
    private readonly collect: BundleCollector,
    private readonly now: () => Date = () => new Date(),
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.object = this.none();
  }

  /** Starts a collection; the returned object is in status Collecting. */
  create(request: { metadata?: { name?: string }; since?: string }): SupportBundleObject {
    this.running?.abort();
    const abort = new AbortController();
    this.running = abort;
    this.archive = undefined;
    const since = typeof request.since === 'string' && request.since !== '' ? request.since : undefined;
    this.object = {
      ...this.none(),
      status: 'Collecting',
      ...(since ? { since } : {}),
    };
    this.pending = this.collect(since, abort.signal).then(
      (bundle) => {
        if (abort.signal.aborted) return;
        const created = this.now();
        this.expiresAt = created.getTime() + SUPPORT_BUNDLE_EXPIRY_MS;
        this.archive = bundle.archive;
        this.object = {
          apiVersion: SUPPORT_BUNDLE_API_VERSION,
          kind: 'SupportBundle',
          metadata: {
            name: this.component,
            creationTimestamp: rfc3339(created),
            deletionTimestamp: rfc3339(new Date(this.expiresAt)),
          },
          status: 'Collected',
          sum: bundle.sum,
          size: bundle.archive.length,
          // Antrea reports a temp file path; the archive is held in memory here.
          filepath: `memory:${this.component}.tar.gz`,
          ...(since ? { since } : {}),
        };
        this.running = undefined;
      },
      (err: unknown) => {
        if (abort.signal.aborted) return;
        this.onError(err);
        this.object = this.none();
        this.running = undefined;
      },
    );
    return this.object;
  }

  /** The current object; a collected bundle past its expiry is gone (status None). */
  get(): SupportBundleObject {
    this.expire();
    return this.object;
  }

  /** The archive, when collected and not expired. */
  download(): Buffer | undefined {
    this.expire();
    return this.archive;
  }

  /** Cancels a collection in progress or forgets the collected bundle. */
  delete(): void {
    this.running?.abort();
    this.running = undefined;
    this.archive = undefined;
    this.object = this.none();
  }

  /** Resolves when the collection in progress (if any) has ended. */
  async settled(): Promise<void> {
    await this.pending;
  }

  private expire(): void {
    if (this.object.status === 'Collected' && this.now().getTime() >= this.expiresAt) {
      this.archive = undefined;
      this.object = this.none();
    }
  }

  private none(): SupportBundleObject {
    return {
      apiVersion: SUPPORT_BUNDLE_API_VERSION,
      kind: 'SupportBundle',
      metadata: { name: this.component },
      status: 'None',
    };
  }
}

/** metav1.Time's JSON form: RFC 3339 in UTC, whole seconds. */
function rfc3339(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}
