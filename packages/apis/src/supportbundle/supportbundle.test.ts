import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SupportBundleState } from './bundle-state.js';
import { LogRing } from './log-ring.js';
import { packBundle } from './pack.js';
import { processReport } from './process-report.js';
import { REDACTED, Redactor } from './redact.js';
import { parseSince } from './since.js';
import { tarGz } from './tar.js';

const KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAtSecretKeyMaterial0123456789abcdefghijklmnopqrstu',
  '-----END RSA PRIVATE KEY-----',
].join('\n');
const JWT = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlLXBhcnQ';

describe('Redactor', () => {
  const r = new Redactor({ secrets: ['s3cr3t-opaque-token-value', 'short'] });

  it('removes PEM private keys, JWTs, bearer headers and known secret values', () => {
    const out = r.redact(
      `key:\n${KEY}\nauth: Bearer abcdefghijklmnop\nsa ${JWT} end\nopaque s3cr3t-opaque-token-value here`,
    );
    expect(out).not.toContain('SecretKeyMaterial');
    expect(out).not.toContain('abcdefghijklmnop');
    expect(out).not.toContain('eyJzdWIiOiJzeXN0ZW06c2EifQ');
    expect(out).not.toContain('s3cr3t-opaque');
    expect(out).toContain('Bearer <redacted>');
    // Too short to be a useful literal: left alone.
    expect(r.redact('a short word')).toBe('a short word');
  });

  it('redacts credential fields in YAML, JSON and key=value, keeping JSON parseable', () => {
    const yaml =
      'users:\n- name: a\n  user:\n    token: abc123def456\n    client-key-data: LS0tLS1CRUdJTg==\n';
    expect(r.redact(yaml)).toBe(
      `users:\n- name: a\n  user:\n    token: ${REDACTED}\n    client-key-data: ${REDACTED}\n`,
    );
    const json = JSON.stringify({ bearerToken: 'zzzzzzzz', password: 'p"w', name: 'x' });
    const parsed = JSON.parse(r.redact(json)) as Record<string, string>;
    expect(parsed).toEqual({ bearerToken: REDACTED, password: REDACTED, name: 'x' });
    expect(r.redact('--token=abcdefgh --v=2')).toBe(`--token=${REDACTED} --v=2`);
  });

  it('leaves ordinary text alone', () => {
    const text = 'table=0, priority=200,in_port=32769 actions=goto_table:1\nNode lab-node-1 Ready';
    expect(r.redact(text)).toBe(text);
  });
});

describe('tarGz', () => {
  it('writes archives that tar reads back, long names included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'antrea-ts-f1-tar-'));
    try {
      const long = `${'d'.repeat(120)}/${'f'.repeat(90)}.txt`;
      const file = join(dir, 'b.tar.gz');
      writeFileSync(
        file,
        tarGz([
          { name: 'logs/agent.log', data: 'line 1\nline 2\n', mtime: 1_700_000_000 },
          { name: 'empty', data: '', mtime: 1_700_000_000 },
          { name: long, data: Buffer.alloc(1300, 7), mtime: 1_700_000_000, mode: 0o600 },
        ]),
      );
      const listing = execFileSync('tar', ['tzvf', file], { encoding: 'utf8' });
      expect(listing).toContain('logs/agent.log');
      expect(listing).toContain(long);
      execFileSync('tar', ['xzf', file, '-C', dir]);
      expect(readFileSync(join(dir, 'logs/agent.log'), 'utf8')).toBe('line 1\nline 2\n');
      expect(readFileSync(join(dir, long)).equals(Buffer.alloc(1300, 7))).toBe(true);
      expect(readFileSync(join(dir, 'empty'), 'utf8')).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses absolute and parent-relative names', () => {
    expect(() => tarGz([{ name: '/etc/x', data: '', mtime: 0 }])).toThrow(RangeError);
    expect(() => tarGz([{ name: 'a/../x', data: '', mtime: 0 }])).toThrow(RangeError);
  });
});

describe('SupportBundleState', () => {
  const bundle = packBundle([{ name: 'a', content: `token: ${JWT}` }], new Redactor(), new Date(0));

  it('goes None -> Collecting -> Collected, and expires after an hour', async () => {
    let now = Date.UTC(2026, 10, 21, 12, 0, 0);
    let release: () => void = () => {};
    const s = new SupportBundleState(
      'agent',
      () => new Promise((resolve) => (release = () => resolve(bundle))),
      () => new Date(now),
    );
    expect(s.get().status).toBe('None');
    expect(s.create({ since: '1h' })).toMatchObject({ status: 'Collecting', since: '1h' });
    expect(s.download()).toBeUndefined();
    release();
    await s.settled();
    expect(s.get()).toMatchObject({
      metadata: { name: 'agent', deletionTimestamp: '2026-11-21T13:00:00Z' },
      status: 'Collected',
      sum: bundle.sum,
      size: bundle.archive.length,
    });
    expect(s.download()?.equals(bundle.archive)).toBe(true);
    now += 60 * 60 * 1000;
    expect(s.get().status).toBe('None');
    expect(s.download()).toBeUndefined();
  });

  it('a new create cancels the running one; a failure goes back to None', async () => {
    const signals: AbortSignal[] = [];
    let fail = false;
    const errors: unknown[] = [];
    const s = new SupportBundleState(
      'controller',
      async (_since, signal) => {
        signals.push(signal);
        if (fail) throw new Error('boom');
        return bundle;
      },
      undefined,
      (e) => errors.push(e),
    );
    s.create({});
    s.create({});
    expect(signals[0]?.aborted).toBe(true);
    await s.settled();
    expect(s.get().status).toBe('Collected');
    fail = true;
    s.create({});
    await s.settled();
    expect(s.get().status).toBe('None');
    expect(errors).toHaveLength(1);
    s.delete();
    expect(s.get().status).toBe('None');
  });

  it('packBundle redacts before packing', () => {
    const raw = execFileSync('gzip', ['-dc'], { input: bundle.archive });
    expect(raw.includes(Buffer.from('eyJzdWIi'))).toBe(false);
  });
});

describe('LogRing', () => {
  it('keeps the newest lines within its budget and filters by time', () => {
    const ring = new LogRing({ maxBytes: 60 });
    ring.write('{"time":1000,"msg":"a"}\n{"time":2000,');
    ring.write('"msg":"b"}\n');
    expect(ring.text()).toBe('{"time":1000,"msg":"a"}\n{"time":2000,"msg":"b"}\n');
    expect(ring.text(1500)).toBe('{"time":2000,"msg":"b"}\n');
    ring.write('{"time":3000,"msg":"c"}\n');
    expect(ring.text()).toBe('{"time":2000,"msg":"b"}\n{"time":3000,"msg":"c"}\n');
  });
});

describe('parseSince', () => {
  it('reads Go-style relative durations', () => {
    expect(parseSince('30s')).toBe(30_000);
    expect(parseSince('1h30m')).toBe(5_400_000);
    expect(parseSince('2.5h')).toBe(9_000_000);
    expect(parseSince('')).toBeUndefined();
    expect(parseSince('5 minutes')).toBeUndefined();
    expect(parseSince('5x')).toBeUndefined();
  });
});

describe('processReport', () => {
  it('has the JavaScript stack and no environment', () => {
    const r = JSON.parse(processReport()) as { report: Record<string, unknown> };
    expect(r.report['javascriptStack']).toBeDefined();
    expect(r.report['environmentVariables']).toBeUndefined();
  });
});
