import { describe, expect, it } from 'vitest';
import type { ModeDecision } from '../mode.js';
import { runAntctl } from '../program.js';
import { captureDeps, fakeConnections, type Handler } from '../testing/fakes.js';
import { goTimeString } from './fqdncache.js';

/** What the agent's /fqdncache answers (one name with two addresses, unsorted). */
const CACHE = [
  { fqdnName: 'www.example.com', ipAddress: '10.0.0.2', expirationTime: '2026-11-21T10:30:00Z' },
  { fqdnName: 'api.antrea.io', ipAddress: '192.168.10.7', expirationTime: '2026-11-21T09:35:12.5Z' },
  { fqdnName: 'api.antrea.io', ipAddress: '192.168.10.10', expirationTime: '2026-11-21T09:35:12.5Z' },
];

async function antctl(
  argv: string[],
  agent: Handler | { status?: number; body?: unknown } = { body: CACHE },
) {
  let fakes: ReturnType<typeof fakeConnections> | undefined;
  const deps = captureDeps({
    connect: (mode: ModeDecision) => {
      fakes = fakeConnections(mode);
      fakes.agentFake.on('GET', '/fqdncache', agent);
      return fakes;
    },
  });
  const code = await runAntctl(argv, deps);
  return { code, out: deps.stdoutText(), err: deps.stderrText(), requests: fakes?.agentFake.requests ?? [] };
}

describe('antctl get fqdncache', () => {
  it("prints Antrea's table: FQDN, ADDRESS, EXPIRATION TIME, rows sorted, times as Go prints them", async () => {
    const r = await antctl(['--mode', 'agent', 'get', 'fqdncache']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        'FQDN            ADDRESS       EXPIRATION TIME                ',
        'api.antrea.io   192.168.10.10 2026-11-21 09:35:12.5 +0000 UTC',
        'api.antrea.io   192.168.10.7  2026-11-21 09:35:12.5 +0000 UTC',
        'www.example.com 10.0.0.2      2026-11-21 10:30:00 +0000 UTC  ',
        '',
      ].join('\n'),
    );
    expect(r.requests).toEqual([{ path: '/fqdncache', query: { domain: undefined } }]);
  });

  it('sends --domain / -d as the domain parameter, the pattern unchanged', async () => {
    const long = await antctl(['--mode', 'agent', 'get', 'fqdncache', '--domain', '*.antrea.io']);
    expect(long.requests[0]?.query).toEqual({ domain: '*.antrea.io' });
    const short = await antctl(['--mode', 'agent', 'get', 'fqdncache', '-d', 'www.example.com']);
    expect(short.requests[0]?.query).toEqual({ domain: 'www.example.com' });
  });

  it('prints the agent’s entries as they came with -o json and -o yaml', async () => {
    const json = await antctl(['--mode', 'agent', 'get', 'fqdncache', '-o', 'json']);
    expect(JSON.parse(json.out)).toEqual(CACHE);
    const yaml = await antctl(['--mode', 'agent', 'get', 'fqdncache', '-o', 'yaml']);
    expect(yaml.out).toContain('- fqdnName: www.example.com\n  ipAddress: 10.0.0.2\n');
  });

  it('prints an empty line for an empty cache', async () => {
    expect((await antctl(['--mode', 'agent', 'get', 'fqdncache'], { body: [] })).out).toBe('\n');
  });

  it('refuses controller mode and unknown flags before asking anything', async () => {
    const controller = await antctl(['--mode', 'controller', 'get', 'fqdncache']);
    expect(controller.code).toBe(2);
    expect(controller.err).toContain('"antctl get fqdncache" is only available in agent mode');
    expect(controller.requests).toEqual([]);
    const flag = await antctl(['--mode', 'agent', 'get', 'fqdncache', '--pod', 'x']);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain("unknown option '--pod'");
    expect(flag.requests).toEqual([]);
  });

  it('names the agent’s reason for a pattern it refuses', async () => {
    const r = await antctl(['--mode', 'agent', 'get', 'fqdncache', '-d', 'a(b'], {
      status: 400,
      body: { error: 'Invalid regex: Unterminated group' },
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain('request for fqdncache failed (400: Invalid regex: Unterminated group)');
  });

  it('says an agent without the route does not serve fqdncache', async () => {
    // fastify's answer for a path it has no route for.
    const r = await antctl(['--mode', 'agent', 'get', 'fqdncache'], {
      status: 404,
      body: { message: 'Route GET:/fqdncache not found', error: 'Not Found', statusCode: 404 },
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain('does not serve fqdncache (404');
    expect(r.err).toContain('this server version may not support the command');
  });
});

describe('completion', () => {
  it('completes fqdncache after get, and its flags after it', async () => {
    const r = await antctl(['completion', 'bash']);
    expect(r.out).toMatch(/"get"\) words="[^"]*\bfqdncache\b/);
    expect(r.out).toMatch(/"get fqdncache"\) words="[^"]*--domain -d/);
  });
});

describe('goTimeString', () => {
  it('formats RFC 3339 as Go’s time.Time String()', () => {
    expect(goTimeString('2026-01-02T03:04:05Z')).toBe('2026-01-02 03:04:05 +0000 UTC');
    expect(goTimeString('2026-01-02T03:04:05.120000Z')).toBe('2026-01-02 03:04:05.12 +0000 UTC');
    expect(goTimeString('2026-01-02T05:04:05.000+02:00')).toBe('2026-01-02 05:04:05 +0200 +0200');
    expect(goTimeString(undefined)).toBe('0001-01-01 00:00:00 +0000 UTC');
    expect(goTimeString('soon')).toBe('soon');
  });
});
