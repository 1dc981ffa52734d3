import { describe, expect, it } from 'vitest';
import type { BundleFileServer, BundleUploader } from './bundle-uploader.js';
import { FileServerBundleUploader } from './file-server-uploader.js';

describe('FileServerBundleUploader', () => {
  it('sends sftp:// and scheme-less URLs to SFTP, http(s):// to PUT, and refuses other schemes', async () => {
    const seen: [string, string][] = [];
    const recording = (kind: string): BundleUploader => ({
      upload: async (fileServer: BundleFileServer) => {
        seen.push([kind, fileServer.url]);
      },
    });
    const up = new FileServerBundleUploader(undefined, { sftp: recording('sftp'), http: recording('http') });
    for (const url of ['sftp://h:22/up', 'SFTP://h/up', '10.0.0.1:22/up', 'http://h/up', 'https://h/up']) {
      await up.upload({ url }, {}, 'f', Buffer.alloc(1));
    }
    expect(seen).toEqual([
      ['sftp', 'sftp://h:22/up'],
      ['sftp', 'SFTP://h/up'],
      ['sftp', '10.0.0.1:22/up'],
      ['http', 'http://h/up'],
      ['http', 'https://h/up'],
    ]);
    await expect(up.upload({ url: 'ftp://h/up' }, {}, 'f', Buffer.alloc(1))).rejects.toMatchObject({
      code: 'AGENT_BUNDLE_UPLOAD_FAILED',
      message: 'unsupported file server URL scheme ftp: use sftp:// (or http(s):// for an HTTP PUT upload)',
    });
  });
});
