import { createServer, type Http2Server, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import {
  CONTENT_TYPE_PROTOBUF,
  decodeControlplaneObject,
  encodeWatchEventFrame,
  type WatchEventType,
} from '@antrea-ts/apis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Http2ControllerConnection } from '../networkpolicy/controller-connection.js';
import type { BundleFileServer, BundleServerAuth } from './bundle-uploader.js';
import { SupportBundleCollectionAgent } from './collection-agent.js';

const BASE = '/apis/controlplane.antrea.io/v1beta2/supportbundlecollections';

interface Collection {
  metadata: { name: string; uid: string };
  expiredAt?: string;
  sinceTime?: string;
  fileServer: BundleFileServer;
  authentication?: BundleServerAuth;
}

const collection = (name: string, extra: Partial<Collection> = {}): Collection => ({
  metadata: { name, uid: `uid-${name}` },
  expiredAt: '2026-11-21T13:00:00Z',
  fileServer: { url: 'http://files/up' },
  ...extra,
});

interface Report {
  metadata: { name: string };
  nodes: { nodeName: string; nodeType: string; completed?: boolean; error?: string }[];
}

/** A controller that serves the watch as protobuf frames and takes status reports in protobuf. */
class FakeController {
  items: Collection[] = [];
  readonly watches: string[] = [];
  readonly posts: { path: string; body: Report }[] = [];
  /** How many more reports of each collection to refuse with 503. */
  readonly refuse = new Map<string, number>();
  /** Collections whose next report gets no answer at all. */
  readonly hang = new Set<string>();
  private stream: Http2ServerResponse | undefined;
  readonly server: Http2Server = createServer((req, res) => {
    if (req.method === 'GET') {
      this.watches.push(req.url);
      res.writeHead(200, { 'content-type': CONTENT_TYPE_PROTOBUF });
      for (const c of this.items) this.send('ADDED', c, res);
      this.send('BOOKMARK', { metadata: { resourceVersion: '7' } }, res);
      this.stream = res;
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      expect(req.headers['content-type']).toBe(CONTENT_TYPE_PROTOBUF);
      const { kind, object } = decodeControlplaneObject(Buffer.concat(chunks));
      expect(kind).toBe('SupportBundleCollectionStatus');
      const report = object as Report;
      // proto2 leaves out a false bool; Go's decoder reads it back as false.
      const nodes = report.nodes.map((n) => ({ ...n, completed: n.completed ?? false }));
      const body = { ...report, nodes };
      this.posts.push({ path: req.url, body });
      if (this.hang.delete(body.metadata.name)) return;
      const refusals = this.refuse.get(body.metadata.name) ?? 0;
      this.refuse.set(body.metadata.name, refusals - 1);
      res.statusCode = refusals > 0 ? 503 : 201;
      res.end('{}');
    });
  });

  send(type: WatchEventType, obj: object, res = this.stream): void {
    res?.write(encodeWatchEventFrame(type, 'SupportBundleCollection', obj as never));
  }

  /** Ends the watch as a controller restart would. */
  drop(): void {
    this.stream?.end();
    this.stream = undefined;
  }
}

describe('SupportBundleCollectionAgent on a watch of the controller', () => {
  const controller = new FakeController();
  let connection: Http2ControllerConnection;
  let agent: SupportBundleCollectionAgent | undefined;
  let collected: { since: string | undefined; secrets: readonly string[] }[];
  let uploads: { fileServer: BundleFileServer; auth: BundleServerAuth; file: string }[];

  function startAgent(): SupportBundleCollectionAgent {
    collected = [];
    uploads = [];
    agent = new SupportBundleCollectionAgent({
      node: 'n1',
      connection,
      collect: async (since, secrets) => {
        collected.push({ since, secrets });
        return { archive: Buffer.from('gz'), sum: 'x' };
      },
      uploader: {
        upload: async (fileServer, auth, file) => {
          uploads.push({ fileServer, auth, file });
          if (fileServer.url.startsWith('sftp:')) throw new Error('file server refused the upload');
        },
      },
      logger: pino({ level: 'silent' }),
      retryMs: 20,
      now: () => new Date('2026-11-21T12:00:00Z'),
    });
    agent.start();
    return agent;
  }

  const reported = () => controller.posts.map((p) => [p.path.split('/').at(-2), p.body.nodes[0]]);
  const until = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 10 });

  beforeAll(async () => {
    await new Promise<void>((r) => controller.server.listen(0, '127.0.0.1', r));
    // The agent's own connection, over cleartext HTTP/2 (no CA to read).
    connection = new Http2ControllerConnection({
      url: `http://127.0.0.1:${(controller.server.address() as AddressInfo).port}`,
      servername: 'antrea.kube-system.svc',
      ca: async () => '',
      token: async () => 'agent-token',
      requestTimeoutMs: 300,
    });
  });
  afterEach(async () => {
    await agent?.stop();
    controller.drop();
    controller.items = [];
    controller.refuse.clear();
    controller.hang.clear();
    controller.posts.length = 0;
    controller.watches.length = 0;
  });
  afterAll(async () => {
    connection.close();
    await new Promise((r) => controller.server.close(r));
  });

  it('collects and uploads each collection of the initial state once, and retries a refused report', async () => {
    controller.items = [
      collection('c1', {
        sinceTime: '2h',
        authentication: { bearerToken: 'upload-secret' },
      }),
      collection('c2', { fileServer: { url: 'sftp://f/x', hostPublicKey: new Uint8Array([1, 2, 3]) } }),
      collection('old', { expiredAt: '2026-11-21T11:00:00Z' }),
    ];
    controller.refuse.set('c1', 1);
    startAgent();
    await until(() => expect(controller.posts).toHaveLength(4));
    expect(controller.watches).toEqual([`${BASE}?watch=true&fieldSelector=nodeName%3Dn1`]);
    expect(collected).toEqual([
      { since: '2h', secrets: ['upload-secret'] },
      { since: undefined, secrets: [] },
    ]);
    // The host key arrives as the protobuf bytes it was sent as.
    expect(uploads.map((u) => [u.fileServer, u.file, u.auth])).toEqual([
      [{ url: 'http://files/up' }, 'n1_c1.tar.gz', { bearerToken: 'upload-secret' }],
      [{ url: 'sftp://f/x', hostPublicKey: new Uint8Array([1, 2, 3]) }, 'n1_c2.tar.gz', {}],
    ]);
    // c1's first report was refused (503) and went again after retryMs.
    expect(controller.posts[0]?.path).toBe(`${BASE}/c1/status`);
    expect(reported()).toEqual([
      ['c1', { nodeName: 'n1', nodeType: 'Node', completed: true }],
      ['c2', { nodeName: 'n1', nodeType: 'Node', completed: false, error: 'file server refused the upload' }],
      [
        'old',
        { nodeName: 'n1', nodeType: 'Node', completed: false, error: 'collection expired before it started' },
      ],
      ['c1', { nodeName: 'n1', nodeType: 'Node', completed: true }],
    ]);
  });

  it('a report the controller never answers times out, counts as refused and does not hold the queue', async () => {
    controller.items = [collection('silent'), collection('next')];
    controller.hang.add('silent');
    startAgent();
    await until(() => expect(controller.posts).toHaveLength(3));
    // silent's report went unanswered; after the connection's request timeout next was collected
    // and reported, and silent's report went again.
    expect(reported()).toEqual([
      ['silent', { nodeName: 'n1', nodeType: 'Node', completed: true }],
      ['next', { nodeName: 'n1', nodeType: 'Node', completed: true }],
      ['silent', { nodeName: 'n1', nodeType: 'Node', completed: true }],
    ]);
  });

  it('starts a collection announced after the initial state without waiting for a poll', async () => {
    startAgent();
    await until(() => expect(controller.watches).toHaveLength(1));
    controller.send('ADDED', collection('late'));
    await until(() => expect(reported()).toEqual([['late', expect.objectContaining({ completed: true })]]));
    // The controller re-sends it (its span changed): still once per uid.
    controller.send('MODIFIED', collection('late'));
    controller.send('ADDED', collection('later'));
    await until(() => expect(controller.posts).toHaveLength(2));
    expect(uploads.map((u) => u.file)).toEqual(['n1_late.tar.gz', 'n1_later.tar.gz']);
  });

  it('after the watch ends, watches again and runs only what it has not run, including what came meanwhile', async () => {
    controller.items = [collection('c1')];
    startAgent();
    await until(() => expect(controller.posts).toHaveLength(1));
    controller.items = [collection('c1'), collection('meanwhile')];
    controller.drop();
    await until(() => expect(controller.posts).toHaveLength(2));
    expect(controller.watches).toHaveLength(2);
    expect(uploads.map((u) => u.file)).toEqual(['n1_c1.tar.gz', 'n1_meanwhile.tar.gz']);
  });

  it('forgets a collection that is deleted or no longer spanned, with its unreported result', async () => {
    const c1Reports = () => controller.posts.filter((p) => p.body.metadata.name === 'c1').length;
    const c1Uploads = () => uploads.filter((u) => u.file === 'n1_c1.tar.gz').length;
    controller.items = [collection('c1')];
    controller.refuse.set('c1', Number.POSITIVE_INFINITY);
    startAgent();
    await until(() => expect(c1Reports()).toBeGreaterThanOrEqual(2));
    // Gone from the state after a reconnect: its report is not sent again. The probe, on the new
    // stream after the initial state, shows the agent has taken that state in.
    controller.items = [];
    controller.drop();
    await until(() => expect(controller.watches).toHaveLength(2));
    controller.send('ADDED', collection('probe'));
    await until(() => expect(reported().map(([name]) => name)).toContain('probe'));
    const sent = c1Reports();
    await new Promise((r) => setTimeout(r, 200));
    expect(c1Reports()).toBe(sent);
    // Back with the same uid: a new span for this agent run, so collected again; likewise after DELETED.
    controller.refuse.clear();
    controller.send('ADDED', collection('c1'));
    await until(() => expect(c1Uploads()).toBe(2));
    controller.send('DELETED', collection('c1'));
    controller.send('ADDED', collection('c1'));
    await until(() => expect(c1Uploads()).toBe(3));
    expect(c1Reports()).toBe(sent + 2);
  });
});
