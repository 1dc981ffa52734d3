import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeLoopbackToken } from './loopback-token.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-loopback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeLoopbackToken', () => {
  it('writes a fresh token 0600, creating the directory, and tightens a file left open', async () => {
    const path = join(dir, 'apiserver', 'loopback-client-token');
    let n = 0;
    const bytes = (len: number) => Buffer.alloc(len, ++n);
    const first = await writeLoopbackToken(path, bytes);
    expect(readFileSync(path, 'utf8')).toBe(first);
    expect(first).toBe(Buffer.alloc(32, 1).toString('base64url'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, 'old', { mode: 0o644 });
    // Whoever could open the file left open never gets to read the new token through it.
    const opened = openSync(path, 'r');
    const second = await writeLoopbackToken(path, bytes);
    expect(second).not.toBe(first);
    expect(readFileSync(path, 'utf8')).toBe(second);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(opened, 'utf8')).toBe('old');
    closeSync(opened);
    expect(readdirSync(join(dir, 'apiserver'))).toEqual(['loopback-client-token']);
  });
});
