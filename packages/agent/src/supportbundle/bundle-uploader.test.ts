import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../errors.js';
import { HttpBundleUploader } from './bundle-uploader.js';

describe('HttpBundleUploader', () => {
  const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.statusCode = req.url?.includes('refuse') ? 403 : 201;
      res.end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('PUTs the archive under the URL with each kind of credentials', async () => {
    const up = new HttpBundleUploader();
    const archive = Buffer.from('tar.gz bytes');
    await up.upload({ url: `${base}/bundles/` }, { bearerToken: 'tok' }, 'n1_c.tar.gz', archive);
    await up.upload({ url: `${base}/bundles` }, { apiKey: 'key' }, 'n1_c.tar.gz', archive);
    await up.upload(
      { url: base },
      { basicAuthentication: { username: 'u', password: 'p' } },
      'n1_c.tar.gz',
      archive,
    );
    expect(seen.map((s) => [s.method, s.url, s.body.toString()])).toEqual([
      ['PUT', '/bundles/n1_c.tar.gz', 'tar.gz bytes'],
      ['PUT', '/bundles/n1_c.tar.gz', 'tar.gz bytes'],
      ['PUT', '/n1_c.tar.gz', 'tar.gz bytes'],
    ]);
    expect(seen[0]?.headers.authorization).toBe('Bearer tok');
    expect(seen[1]?.headers['x-api-key']).toBe('key');
    expect(seen[2]?.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
  });

  it('fails with AGENT_BUNDLE_UPLOAD_FAILED on a refusal, an unreachable server and another scheme', async () => {
    const up = new HttpBundleUploader(2_000);
    const code = async (p: Promise<void>) =>
      p.then(
        () => 'ok',
        (e: unknown) => (AgentError.is(e) ? e.code : 'other'),
      );
    expect(await code(up.upload({ url: `${base}/refuse` }, {}, 'x', Buffer.alloc(1)))).toBe(
      'AGENT_BUNDLE_UPLOAD_FAILED',
    );
    expect(await code(up.upload({ url: 'http://127.0.0.1:1' }, {}, 'x', Buffer.alloc(1)))).toBe(
      'AGENT_BUNDLE_UPLOAD_FAILED',
    );
    await expect(up.upload({ url: 'sftp://files:22/upload' }, {}, 'x', Buffer.alloc(1))).rejects.toThrow(
      'not an http(s):// file server URL: sftp://files:22/upload',
    );
  });
});
