import { describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { FakeTokenReviewer } from '../testing/fakes.js';
import { TokenAuthenticator } from './token-authenticator.js';

describe('TokenAuthenticator', () => {
  const agent = {
    username: 'system:serviceaccount:kube-system:antrea-agent',
    uid: 'u1',
    groups: ['system:serviceaccounts', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/node-name': ['node-1'] },
  };

  it('caches a positive review for its TTL and exposes the bound node name', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeTokenReviewer(new Map([['t1', agent]]));
    const hits: boolean[] = [];
    const authn = new TokenAuthenticator({
      reviewer,
      clock,
      successTtlMs: 10_000,
      onCache: (h) => hits.push(h),
    });
    const user = await authn.authenticate('t1');
    expect(user).toMatchObject({ username: agent.username, nodeName: 'node-1', authenticatedBy: 'token' });
    await authn.authenticate('t1');
    expect(reviewer.calls).toBe(1);
    clock.advance(10_000);
    await authn.authenticate('t1');
    expect(reviewer.calls).toBe(2);
    expect(hits).toEqual([false, true, false]);
  });

  it('caches rejections separately, and does not cache review failures', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeTokenReviewer();
    const authn = new TokenAuthenticator({ reviewer, clock, failureTtlMs: 1000 });
    expect(await authn.authenticate('bad')).toBeNull();
    expect(await authn.authenticate('bad')).toBeNull();
    expect(reviewer.calls).toBe(1);
    reviewer.failNext = true;
    await expect(authn.authenticate('other')).rejects.toThrow('unreachable');
    expect(await authn.authenticate('other')).toBeNull();
    expect(reviewer.calls).toBe(3);
  });

  it('keeps at most maxEntries tokens, evicting the least recently used', async () => {
    const clock = new FakeClock();
    const tokens = new Map(Array.from({ length: 5 }, (_, i) => [`t${i}`, { username: `u${i}` }] as const));
    const reviewer = new FakeTokenReviewer(new Map(tokens));
    const authn = new TokenAuthenticator({ reviewer, clock, maxEntries: 2 });
    await authn.authenticate('t0');
    await authn.authenticate('t1');
    await authn.authenticate('t0'); // hit: t0 becomes most recent
    await authn.authenticate('t2'); // evicts t1
    expect(reviewer.calls).toBe(3);
    await authn.authenticate('t0');
    expect(reviewer.calls).toBe(3);
    await authn.authenticate('t1');
    expect(reviewer.calls).toBe(4);
  });

  it('shares one review between concurrent requests with the same token', async () => {
    const reviewer = new FakeTokenReviewer(new Map([['t1', agent]]));
    const authn = new TokenAuthenticator({ reviewer, clock: new FakeClock() });
    await Promise.all([authn.authenticate('t1'), authn.authenticate('t1'), authn.authenticate('t1')]);
    expect(reviewer.calls).toBe(1);
  });
});
