import { type ClientHttp2Session, connect, createServer, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControllerConnection } from '../networkpolicy/controller-connection.js';
import type { BundleServerAuth } from './bundle-uploader.js';
import { SupportBundleCollectionAgent } from './collection-agent.js';

describe('SupportBundleCollectionAgent against an HTTP/2 controller', () => {
  let server: Http2Server;
  let session: ClientHttp2Session;
  let items: unknown[] = [];
  const lists: string[] = [];
  const posts: { path: string; body: unknown }[] = [];
  let refuseStatus = 1;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'GET') {
          lists.push(req.url);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ items }));
          return;
        }
        posts.push({ path: req.url, body: JSON.parse(Buffer.concat(chunks).toString()) });
        res.statusCode = refuseStatus-- > 0 ? 503 : 201;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    session = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    session.close();
    await new Promise((r) => server.close(r));
  });

  it('collects and uploads each collection once, retries a refused report, forgets finished ones', async () => {
    const connection = {
      session: async () => session,
      token: async () => 'agent-token',
    } as unknown as ControllerConnection;
    const collected: { since: string | undefined; secrets: readonly string[] }[] = [];
    const uploads: { url: string; auth: BundleServerAuth; file: string }[] = [];
    const agent = new SupportBundleCollectionAgent({
      node: 'n1',
      connection,
      collect: async (since, secrets) => {
        collected.push({ since, secrets });
        return { archive: Buffer.from('gz'), sum: 'x' };
      },
      uploader: {
        upload: async (url, auth, file) => {
          uploads.push({ url, auth, file });
          if (url.startsWith('sftp:')) throw new Error('sftp upload is not implemented');
        },
      },
      logger: pino({ level: 'silent' }),
      now: () => new Date('2026-11-21T12:00:00Z'),
    });
    items = [
      {
        metadata: { name: 'c1', uid: 'u1' },
        expiredAt: '2026-11-21T13:00:00Z',
        sinceTime: '2h',
        fileServer: { url: 'http://files/up' },
        authentication: { authType: 'BearerToken', bearerToken: 'upload-secret' },
      },
      {
        metadata: { name: 'c2', uid: 'u2' },
        expiredAt: '2026-11-21T13:00:00Z',
        fileServer: { url: 'sftp://f/x' },
      },
      {
        metadata: { name: 'old', uid: 'u3' },
        expiredAt: '2026-11-21T11:00:00Z',
        fileServer: { url: 'http://f' },
      },
    ];
    await agent.poll();
    expect(lists[0]).toBe(
      '/apis/controlplane.antrea.io/v1beta2/supportbundlecollections?fieldSelector=nodeName%3Dn1',
    );
    expect(collected).toEqual([
      { since: '2h', secrets: ['upload-secret'] },
      { since: undefined, secrets: [] },
    ]);
    expect(uploads.map((u) => [u.url, u.file])).toEqual([
      ['http://files/up', 'n1_c1.tar.gz'],
      ['sftp://f/x', 'n1_c2.tar.gz'],
    ]);
    const nodes = (p: { body: unknown }) => (p.body as { nodes: unknown[] }).nodes[0];
    // The first report was refused (503); the other two went through.
    expect(posts.map((p) => p.path)).toEqual([
      '/apis/controlplane.antrea.io/v1beta2/supportbundlecollections/c1/status',
      '/apis/controlplane.antrea.io/v1beta2/supportbundlecollections/c2/status',
      '/apis/controlplane.antrea.io/v1beta2/supportbundlecollections/old/status',
    ]);
    expect(nodes(posts[1]!)).toEqual({
      nodeName: 'n1',
      nodeType: 'Node',
      completed: false,
      error: 'sftp upload is not implemented',
    });
    expect(nodes(posts[2]!)).toMatchObject({
      completed: false,
      error: 'collection expired before it started',
    });

    await agent.poll();
    expect(collected).toHaveLength(2);
    expect(posts.slice(3).map((p) => [p.path.split('/').at(-2), nodes(p)])).toEqual([
      ['c1', { nodeName: 'n1', nodeType: 'Node', completed: true }],
    ]);
    await agent.poll();
    expect(posts).toHaveLength(4);

    // Gone from the list, then back (a new collection of the same name): collected again.
    items = [];
    await agent.poll();
    items = [{ metadata: { name: 'c1', uid: 'u1' }, fileServer: { url: 'http://files/up' } }];
    await agent.poll();
    expect(collected).toHaveLength(3);
  });
});
