import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DNS_TYPE, encodeDnsMessage, type ResolvedAddress } from './dns-message.js';
import { FqdnCache } from './fqdn-cache.js';
import { FqdnController } from './fqdn-controller.js';

const logger = pino({ level: 'silent' });

function udpFrame(name: string, ip: string, ttl: number): Buffer {
  const dns = encodeDnsMessage({
    id: 1,
    response: true,
    rcode: 0,
    questions: [{ name, type: DNS_TYPE.A }],
    answers: [{ name, type: DNS_TYPE.A, ttl, data: ip }],
  });
  const eth = Buffer.alloc(14);
  eth.writeUInt16BE(0x0800, 12);
  const ip4 = Buffer.alloc(20);
  ip4[0] = 0x45;
  ip4.writeUInt16BE(28 + dns.length, 2);
  ip4[9] = 17;
  const udp = Buffer.alloc(8);
  udp.writeUInt16BE(53, 0);
  return Buffer.concat([eth, ip4, udp, dns]);
}

function setup(opts: {
  realize?: () => Promise<boolean>;
  resolve?: (n: string) => Promise<ResolvedAddress[]>;
  upToDate?: () => boolean;
}) {
  const cache = new FqdnCache();
  const realize = vi.fn(opts.realize ?? (async () => true));
  const c = new FqdnController({
    cache,
    realize,
    ...(opts.upToDate ? { upToDate: opts.upToDate } : {}),
    logger,
    realizeTimeoutMs: 50,
    ...(opts.resolve ? { resolve: opts.resolve } : {}),
  });
  return { cache, realize, c };
}

afterEach(() => vi.useRealTimers());

describe('FqdnController', () => {
  it('realizes the rules before a response with a new address goes on; a known answer goes on at once', async () => {
    const order: string[] = [];
    const { c, cache, realize } = setup({
      realize: async () => {
        order.push(`realize:${cache.addresses(['*.test.example']).join(',')}`);
        return true;
      },
    });
    c.setSelectors(['*.test.example']);
    expect(await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 60))).toBe(true);
    expect(order).toEqual(['realize:10.0.0.1']);
    expect(await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 60))).toBe(true);
    expect(await c.onDnsResponse(udpFrame('unrelated.example', '10.0.0.2', 60))).toBe(true);
    expect(realize).toHaveBeenCalledTimes(1);
    c.stop();
  });

  it('delivers what it cannot parse, and drops a response whose rules were not realized in time', async () => {
    const { c } = setup({ realize: () => new Promise<boolean>(() => {}) });
    c.setSelectors(['*.test.example']);
    expect(await c.onDnsResponse(Buffer.from('not a packet'))).toBe(true);
    const garbage = udpFrame('a.test.example', '10.0.0.1', 60);
    garbage.fill(0xff, 42 + 12); // corrupt the DNS message after its header
    expect(await c.onDnsResponse(garbage)).toBe(true);
    expect(c.counts.unparsable).toBe(2);
    expect(await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 60))).toBe(false);
    expect(c.counts.dropped).toBe(1);
    c.stop();
  });

  it('after a failed realization, a known answer also waits for a new one (as Antrea)', async () => {
    let ok = true;
    const { c, realize } = setup({ upToDate: () => ok, realize: async () => ok });
    c.setSelectors(['*.test.example']);
    await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 60));
    ok = false;
    expect(await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 60))).toBe(false);
    ok = true;
    expect(await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 60))).toBe(true);
    expect(realize).toHaveBeenCalledTimes(2);
    c.stop();
  });

  it('removes addresses when their TTL runs out and realizes the rules again', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { c, cache, realize } = setup({});
    c.setSelectors(['*.test.example']);
    await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 5));
    expect(realize).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(4_900);
    expect(cache.addresses(['*.test.example'])).toEqual(['10.0.0.1']);
    await vi.advanceTimersByTimeAsync(200);
    expect(cache.addresses(['*.test.example'])).toEqual([]);
    expect(realize).toHaveBeenCalledTimes(2);
    c.stop();
  });

  it('resolves exact names itself, again when the answer expires, and retries failures', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    let calls = 0;
    const resolve = vi.fn(async (_name: string): Promise<ResolvedAddress[]> => {
      calls++;
      if (calls === 2) throw new Error('timeout');
      return [{ ip: `10.0.0.${calls}`, ttl: 10 }];
    });
    const { c, cache, realize } = setup({ resolve });
    c.setSelectors(['exact.example', '*.test.example']);
    await vi.advanceTimersByTimeAsync(1);
    expect(resolve).toHaveBeenCalledWith('exact.example');
    expect(resolve).toHaveBeenCalledTimes(1); // wildcards are not resolved
    expect(cache.addresses(['exact.example'])).toEqual(['10.0.0.1']);
    expect(realize).toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10_000); // re-query at expiry: fails
    expect(resolve).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(5_000); // retry after 5 s
    expect(resolve).toHaveBeenCalledTimes(3);
    expect(cache.addresses(['exact.example'])).toEqual(['10.0.0.3']);
    c.setSelectors([]); // the rule went: no more queries
    await vi.advanceTimersByTimeAsync(60_000);
    expect(resolve).toHaveBeenCalledTimes(3);
    c.stop();
  });
});

describe('FqdnController timers', () => {
  it('waits out TTLs longer than a timer can hold without firing early', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { c, cache, realize } = setup({});
    const expire = vi.spyOn(cache, 'expire');
    c.setSelectors(['*.test.example']);
    await c.onDnsResponse(udpFrame('a.test.example', '10.0.0.1', 0x7fffffff)); // ~68 years
    await vi.advanceTimersByTimeAsync(60_000);
    // A delay past 2^31-1 ms would fire at once (Node's rule), again and again.
    expect(expire).not.toHaveBeenCalled();
    expect(realize).toHaveBeenCalledTimes(1);
    expect(cache.addresses(['*.test.example'])).toEqual(['10.0.0.1']);
    c.stop();
  });
});
