import { describe, expect, it } from 'vitest';
import type { UserInfo } from '../authn/user.js';
import { FakeClock } from '../clock.js';
import { resolveRequestInfo } from '../request-info.js';
import { FakeAccessReviewer } from '../testing/fakes.js';
import { Authorizer } from './authorizer.js';

const user: UserInfo = { username: 'agent', groups: ['g'], extra: {}, authenticatedBy: 'token' };
const list = resolveRequestInfo(
  'GET',
  '/apis/controlplane.antrea.io/v1beta2/networkpolicies',
  new URLSearchParams(),
);
const watch = resolveRequestInfo(
  'GET',
  '/apis/controlplane.antrea.io/v1beta2/networkpolicies',
  new URLSearchParams('watch=1'),
);

describe('Authorizer', () => {
  it('caches allowed decisions briefly and asks again for denied ones', async () => {
    const clock = new FakeClock();
    const reviewer = new FakeAccessReviewer((_u, info) => info.verb === 'list');
    const authz = new Authorizer({ reviewer, clock, allowedTtlMs: 5000 });
    expect((await authz.authorize(user, list)).allowed).toBe(true);
    expect((await authz.authorize(user, list)).allowed).toBe(true);
    expect(reviewer.calls).toBe(1);
    expect((await authz.authorize(user, watch)).allowed).toBe(false);
    expect((await authz.authorize(user, watch)).allowed).toBe(false);
    expect(reviewer.calls).toBe(3);
    clock.advance(5000);
    await authz.authorize(user, list);
    expect(reviewer.calls).toBe(4);
  });

  it('keys the cache by the whole identity, so another user is reviewed', async () => {
    const reviewer = new FakeAccessReviewer((u) => u.username === 'agent');
    const authz = new Authorizer({ reviewer, clock: new FakeClock() });
    await authz.authorize(user, list);
    expect((await authz.authorize({ ...user, username: 'other' }, list)).allowed).toBe(false);
    expect((await authz.authorize({ ...user, groups: ['h'] }, list)).allowed).toBe(true);
    expect(reviewer.calls).toBe(3);
  });

  it('allows system:masters and health paths without a review', async () => {
    const reviewer = new FakeAccessReviewer(() => false);
    const authz = new Authorizer({ reviewer, clock: new FakeClock() });
    expect((await authz.authorize({ ...user, groups: ['system:masters'] }, list)).allowed).toBe(true);
    expect(reviewer.calls).toBe(0);
    expect(authz.isAlwaysAllowedPath('/readyz')).toBe(true);
    expect(authz.isAlwaysAllowedPath('/readyz/ping')).toBe(true);
    expect(authz.isAlwaysAllowedPath('/metrics')).toBe(false);
    expect(authz.isAlwaysAllowedPath('/readyzz')).toBe(false);
  });
});
