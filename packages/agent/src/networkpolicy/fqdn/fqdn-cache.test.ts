import { describe, expect, it } from 'vitest';
import { FqdnCache } from './fqdn-cache.js';

function cacheAt(minTtlSeconds = 0) {
  const clock = { t: 1_000_000 };
  const cache = new FqdnCache({ now: () => clock.t, minTtlSeconds });
  return { clock, cache };
}
const answer = (name: string, ...a: [string, number][]) =>
  new Map([[name, a.map(([ip, ttl]) => ({ ip, ttl }))]]);

describe('FqdnCache', () => {
  it('keeps only names some selector matches, and reports gained addresses', () => {
    const { cache } = cacheAt();
    expect(cache.setSelectors(['*.test.example', 'Exact.Example'])).toEqual(['exact.example']);
    expect(cache.learn(answer('other.example', ['10.0.0.9', 60]))).toBe(false);
    expect(cache.version).toBe(0);
    expect(cache.learn(answer('a.test.example', ['10.0.0.1', 60]))).toBe(true);
    expect(cache.learn(answer('a.test.example', ['10.0.0.1', 60]))).toBe(false); // nothing new
    expect(cache.version).toBe(1); // up only when an address is gained
    expect(cache.learn(answer('exact.example', ['10.0.0.2', 60]))).toBe(true);
    expect(cache.version).toBe(2);
    expect(cache.addresses(['*.test.example'])).toEqual(['10.0.0.1']);
    expect(cache.addresses(['exact.example', '*.test.example'])).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(cache.addresses(['other.example'])).toEqual([]);
  });

  it('expires an address after its TTL; a later answer extends it, a shorter one does not shorten it', () => {
    const { clock, cache } = cacheAt();
    cache.setSelectors(['*.test.example']);
    cache.learn(answer('a.test.example', ['10.0.0.1', 10], ['10.0.0.3', 30]));
    expect(cache.nextExpiry()).toBe(clock.t + 10_000);
    clock.t += 5_000;
    cache.learn(answer('a.test.example', ['10.0.0.1', 2])); // expiry stays at +10 s
    clock.t += 5_000;
    expect(cache.expire()).toBe(true);
    expect(cache.addresses(['*.test.example'])).toEqual(['10.0.0.3']);
    expect(cache.expire()).toBe(false);
    clock.t += 19_000;
    cache.learn(answer('a.test.example', ['10.0.0.3', 30]));
    clock.t += 2_000;
    expect(cache.expire()).toBe(false); // extended by the later answer
    clock.t += 29_000;
    expect(cache.expire()).toBe(true);
    expect(cache.size).toBe(0);
  });

  it('keeps an address shared by two names until both expired it', () => {
    const { clock, cache } = cacheAt();
    cache.setSelectors(['a.example', 'b.example']);
    cache.learn(answer('a.example', ['10.0.0.7', 10]));
    cache.learn(answer('b.example', ['10.0.0.7', 50]));
    clock.t += 20_000;
    cache.expire();
    expect(cache.addresses(['a.example'])).toEqual([]);
    expect(cache.addresses(['b.example'])).toEqual(['10.0.0.7']);
    expect(cache.addresses(['a.example', 'b.example'])).toEqual(['10.0.0.7']);
  });

  it('applies the minimum TTL (fqdnCacheMinTTL) to short answers only', () => {
    const { clock, cache } = cacheAt(30);
    cache.setSelectors(['a.example']);
    cache.learn(answer('a.example', ['10.0.0.1', 5], ['10.0.0.2', 100]));
    clock.t += 29_000;
    expect(cache.expire()).toBe(false);
    clock.t += 2_000;
    expect(cache.expire()).toBe(true);
    expect(cache.addresses(['a.example'])).toEqual(['10.0.0.2']);
  });

  it('forgets names when the selectors that matched them go; an expired address counts as gained again', () => {
    const { clock, cache } = cacheAt();
    cache.setSelectors(['*.test.example']);
    cache.learn(answer('a.test.example', ['10.0.0.1', 1]));
    clock.t += 2_000;
    expect(cache.learn(answer('a.test.example', ['10.0.0.1', 1]))).toBe(true);
    expect(cache.setSelectors(['x.example'])).toEqual(['x.example']);
    expect(cache.size).toBe(0);
    expect(cache.setSelectors(['x.example'])).toEqual([]);
  });
});
