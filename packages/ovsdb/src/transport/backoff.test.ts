import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';
import { parseEndpoint } from './endpoint.js';

describe('backoffDelay', () => {
  it('doubles up to the ceiling', () => {
    const o = { initialMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 4, 50].map((a) => backoffDelay(o, a, () => 0.5))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });
  it('applies jitter within the configured fraction', () => {
    const o = { initialMs: 100, maxMs: 1000, jitter: 0.5 };
    expect(backoffDelay(o, 0, () => 0)).toBe(50);
    expect(backoffDelay(o, 0, () => 1)).toBe(100);
  });
});

describe('parseEndpoint', () => {
  it.each([
    ['unix:/run/openvswitch/db.sock', { kind: 'unix', path: '/run/openvswitch/db.sock' }],
    ['/tmp/db.sock', { kind: 'unix', path: '/tmp/db.sock' }],
    ['tcp:127.0.0.1:6640', { kind: 'tcp', host: '127.0.0.1', port: 6640 }],
    ['tcp:[::1]:6640', { kind: 'tcp', host: '::1', port: 6640 }],
  ])('parses %s', (remote, endpoint) => {
    expect(parseEndpoint(remote)).toEqual(endpoint);
  });
  it.each(['ssl:1.2.3.4:6640', 'tcp:host', 'tcp:host:0', 'db.sock'])('rejects %s', (remote) => {
    expect(() => parseEndpoint(remote)).toThrow(expect.objectContaining({ code: 'OVSDB_PROTOCOL' }));
  });
});
