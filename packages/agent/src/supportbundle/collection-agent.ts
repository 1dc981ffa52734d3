// The agent half of SupportBundleCollection (Antrea pkg/agent/supportbundlecollection): the
// collections the controller spans to this Node are fetched (a JSON list with fieldSelector
// nodeName=, polled every pollMs rather than watched), each is collected once with its
// sinceTime, uploaded, and reported on supportbundlecollections/{name}/status.
import { constants as h2 } from 'node:http2';
import type { CollectedBundle } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { ControllerConnection } from '../networkpolicy/controller-connection.js';
import type { BundleServerAuth, BundleUploader } from './bundle-uploader.js';

const BASE = '/apis/controlplane.antrea.io/v1beta2/supportbundlecollections';

interface WireCollection {
  metadata: { name: string; uid?: string };
  expiredAt?: string;
  sinceTime?: string;
  fileServer?: { url?: string };
  authentication?: BundleServerAuth;
}

export interface CollectionAgentOptions {
  readonly node: string;
  readonly connection: ControllerConnection;
  /** Collects this Node's bundle; `secrets` are removed from it like the agent's own. */
  readonly collect: (since: string | undefined, secrets: readonly string[]) => Promise<CollectedBundle>;
  readonly uploader: BundleUploader;
  readonly logger: Logger;
  readonly pollMs?: number;
  readonly now?: () => Date;
}

async function h2json(
  conn: ControllerConnection,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const session = await conn.session();
  const token = await conn.token();
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = session.request({
      [h2.HTTP2_HEADER_METHOD]: method,
      [h2.HTTP2_HEADER_PATH]: path,
      accept: 'application/json',
      authorization: `Bearer ${token}`,
      ...(payload ? { 'content-type': 'application/json' } : {}),
    });
    let status = 0;
    const chunks: Buffer[] = [];
    req.on('response', (headers) => {
      status = Number(headers[h2.HTTP2_HEADER_STATUS]);
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = text;
      }
      resolve({ status, json });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Collects, uploads and reports each SupportBundleCollection spanning this Node, once. */
export class SupportBundleCollectionAgent {
  private readonly log: Logger;
  private readonly done = new Set<string>();
  /** Results the controller has not accepted yet, by collection. */
  private readonly unreported = new Map<string, { metadata: { name: string } }>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly o: CollectionAgentOptions) {
    this.log = o.logger.child({ component: 'supportbundlecollection' });
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.running ??= this.poll()
        .catch((err: unknown) => this.log.debug({ err }, 'SupportBundleCollection poll failed'))
        .finally(() => {
          this.running = undefined;
        });
    };
    tick();
    this.timer = setInterval(tick, this.o.pollMs ?? 2000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over the collections of this Node. */
  async poll(): Promise<void> {
    const selector = encodeURIComponent(`nodeName=${this.o.node}`);
    const res = await h2json(this.o.connection, 'GET', `${BASE}?fieldSelector=${selector}`);
    if (res.status !== 200) throw new Error(`listing supportbundlecollections: HTTP ${res.status}`);
    const items = (res.json as { items?: WireCollection[] }).items ?? [];
    const keys = new Set(items.map((c) => c.metadata.uid ?? c.metadata.name));
    // A collection the controller no longer spans here is finished: forget it and its report.
    for (const k of this.done) if (!keys.has(k)) this.done.delete(k);
    for (const k of this.unreported.keys()) if (!keys.has(k)) this.unreported.delete(k);
    for (const c of items) {
      const key = c.metadata.uid ?? c.metadata.name;
      const pending = this.unreported.get(key);
      if (pending) await this.report(key, pending);
      if (this.done.has(key)) continue;
      this.done.add(key);
      await this.report(key, await this.process(c));
    }
  }

  /** Posts a result; kept for the next poll when the controller does not take it. */
  private async report(key: string, status: { metadata: { name: string } }): Promise<void> {
    const name = status.metadata.name;
    const r = await h2json(
      this.o.connection,
      'POST',
      `${BASE}/${encodeURIComponent(name)}/status`,
      status,
    ).catch((err: unknown) => ({ status: 0, json: String(err) }));
    if (r.status >= 200 && r.status < 300) this.unreported.delete(key);
    else {
      this.unreported.set(key, status);
      this.log.warn(
        { collection: name, status: r.status },
        'reporting the collection status failed; retrying',
      );
    }
  }

  /** Collects and uploads; returns the status to report. */
  private async process(c: WireCollection): Promise<{ metadata: { name: string } }> {
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
        await this.o.uploader.upload(
          c.fileServer?.url ?? '',
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
    const status = {
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
    return status;
  }
}
