import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { FqdnCache } from '../networkpolicy/fqdn/fqdn-cache.js';
import { domainFilter, type FqdnCacheView, goTimeJson, registerFqdnCacheRoute } from './fqdncache-route.js';

// 2026-01-02T03:04:05Z
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);

/** A real cache at T0 holding answers for a wildcard selector and an exact name. */
function cache(): FqdnCache {
  const c = new FqdnCache({ now: () => T0 });
  c.setSelectors(['*.test.example', 'exact.example.org']);
  c.learn(
    new Map([
      [
        'b.test.example',
        [
          { ip: '10.0.0.12', ttl: 30 },
          { ip: '10.0.0.11', ttl: 60 },
        ],
      ],
    ]),
  );
  c.learn(new Map([['a.b.test.example', [{ ip: '10.0.0.2', ttl: 3600 }]]]));
  c.learn(new Map([['EXACT.example.org', [{ ip: '2001:db8::1', ttl: 1 }]]]));
  return c;
}

function app(view: () => FqdnCacheView | undefined = cache) {
  const a = Fastify();
  registerFqdnCacheRoute(a, view);
  return a;
}

const get = async (url: string, view?: () => FqdnCacheView | undefined) => {
  const r = await app(view).inject({ method: 'GET', url });
  return { status: r.statusCode, body: r.json() as unknown };
};
const names = (b: unknown) => (b as { fqdnName: string }[]).map((e) => e.fqdnName);

describe('/fqdncache', () => {
  it('lists one entry per name and address, with the field names and time form Antrea encodes', async () => {
    const r = await get('/fqdncache');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { fqdnName: 'a.b.test.example', ipAddress: '10.0.0.2', expirationTime: '2026-01-02T04:04:05Z' },
      { fqdnName: 'b.test.example', ipAddress: '10.0.0.11', expirationTime: '2026-01-02T03:05:05Z' },
      { fqdnName: 'b.test.example', ipAddress: '10.0.0.12', expirationTime: '2026-01-02T03:04:35Z' },
      { fqdnName: 'exact.example.org', ipAddress: '2001:db8::1', expirationTime: '2026-01-02T03:04:06Z' },
    ]);
  });

  it('--domain: an exact name, and * spanning any labels but not the dot before it', async () => {
    expect(names((await get('/fqdncache?domain=exact.example.org')).body)).toEqual(['exact.example.org']);
    expect(names((await get('/fqdncache?domain=*.test.example')).body)).toEqual([
      'a.b.test.example',
      'b.test.example',
      'b.test.example',
    ]);
    expect(names((await get('/fqdncache?domain=*.b.test.example')).body)).toEqual(['a.b.test.example']);
    // The whole name is matched, and '.' is only a dot.
    expect((await get('/fqdncache?domain=test.example')).body).toEqual([]);
    expect((await get('/fqdncache?domain=exactXexample.org')).body).toEqual([]);
    // Spaces around the pattern are dropped; an empty pattern filters nothing.
    expect(names((await get('/fqdncache?domain=%20exact.example.org%20')).body)).toHaveLength(1);
    expect((await get('/fqdncache?domain=')).body).toHaveLength(4);
  });

  it('keeps the rest of the pattern a regular expression, and refuses one that does not parse', async () => {
    const alternatives = encodeURIComponent('(exact|a).*');
    expect(names((await get(`/fqdncache?domain=${alternatives}`)).body)).toEqual([
      'a.b.test.example',
      'exact.example.org',
    ]);
    const r = await get('/fqdncache?domain=example(abc');
    expect(r.status).toBe(400);
    expect((r.body as { error: string }).error).toMatch(/^Invalid regex: /);
  });

  it('answers an empty list for an empty cache and for an agent without policies', async () => {
    expect((await get('/fqdncache', () => new FqdnCache())).body).toEqual([]);
    expect((await get('/fqdncache', () => undefined)).body).toEqual([]);
  });
});

describe('helpers', () => {
  it('goTimeJson trims the fraction as Go does', () => {
    expect(goTimeJson(T0)).toBe('2026-01-02T03:04:05Z');
    expect(goTimeJson(T0 + 120)).toBe('2026-01-02T03:04:05.12Z');
    expect(goTimeJson(T0 + 7)).toBe('2026-01-02T03:04:05.007Z');
  });

  it('domainFilter is case-sensitive, as Antrea (the cache holds lower-case names)', () => {
    expect(domainFilter('A.example')?.test('a.example')).toBe(false);
    expect(domainFilter(undefined)).toBeUndefined();
    expect(domainFilter('  ')).toBeUndefined();
  });
});
