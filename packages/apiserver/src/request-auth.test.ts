import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS_USER, type UserInfo } from './authn/user.js';
import { Authorizer } from './authz/authorizer.js';
import { FakeClock } from './clock.js';
import {
  authenticateAndAuthorize,
  authenticateBearerToken,
  forbidden,
  statusErrorHeaders,
} from './request-auth.js';
import { resolveRequestInfo } from './request-info.js';
import { ApiError } from './status.js';
import { FakeAccessReviewer } from './testing/fakes.js';

const log = pino({ level: 'silent' });
const alice: UserInfo = { username: 'alice', groups: [], extra: {}, authenticatedBy: 'token' };
const info = (method: string, path: string) => resolveRequestInfo(method, path, new URLSearchParams());

describe('authenticateBearerToken', () => {
  const check = async (token: string) => {
    if (token === 'down') throw new Error('kube-apiserver down');
    return token === 'alice-token' ? alice : null;
  };

  it('reads the Bearer token and reports how authentication ended', async () => {
    expect(await authenticateBearerToken('Bearer alice-token', check, log)).toEqual({
      user: alice,
      result: 'token',
    });
    expect(await authenticateBearerToken('bearer  alice-token ', check, log)).toEqual({
      user: alice,
      result: 'token',
    });
    expect(await authenticateBearerToken(undefined, check, log)).toEqual({ result: 'failed' });
    expect(await authenticateBearerToken('Basic alice-token', check, log)).toEqual({ result: 'failed' });
    expect(await authenticateBearerToken('Bearer forged', check, log)).toEqual({ result: 'failed' });
    expect(await authenticateBearerToken('Bearer down', check, log)).toEqual({ result: 'error' });
  });
});

describe('authenticateAndAuthorize', () => {
  const reviewer = new FakeAccessReviewer((_u, i) => i.verb === 'list');
  const authorizer = new Authorizer({ reviewer, clock: new FakeClock() });
  const policies = '/apis/controlplane.antrea.io/v1beta2/networkpolicies';
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: ApiError) => e,
    );

  it('lets always-allowed paths in as anonymous without authenticating', async () => {
    const never = async () => expect.fail('authenticated');
    expect(await authenticateAndAuthorize(authorizer, info('GET', '/livez'), never, log)).toBe(
      ANONYMOUS_USER,
    );
  });

  it('returns the user when allowed, 401 without one, 403 when denied, 500 when undecidable', async () => {
    expect(await authenticateAndAuthorize(authorizer, info('GET', policies), async () => alice, log)).toBe(
      alice,
    );
    const none = await refusal(
      authenticateAndAuthorize(authorizer, info('GET', policies), async () => undefined, log),
    );
    expect(none).toEqual(ApiError.unauthorized());
    const denied = await refusal(
      authenticateAndAuthorize(authorizer, info('DELETE', policies), async () => alice, log),
    );
    expect(denied).toMatchObject({ code: 403, reason: 'Forbidden' });
    const broken = new Authorizer({
      reviewer: { review: async () => Promise.reject(new Error('down')) },
      clock: new FakeClock(),
    });
    const failed = await refusal(
      authenticateAndAuthorize(broken, info('GET', policies), async () => alice, log),
    );
    expect(failed).toMatchObject({ code: 500, reason: 'InternalError' });
  });
});

describe('forbidden', () => {
  it('words a refusal as Kubernetes: what was asked for and where', () => {
    expect(forbidden(alice, info('GET', '/ovsflows')).toStatus()).toMatchObject({
      message: 'forbidden: User "alice" cannot get path "/ovsflows"',
    });
    const named = forbidden(alice, info('GET', '/apis/system.antrea.io/v1beta1/supportbundles/agent'));
    expect(named.toStatus()).toMatchObject({
      code: 403,
      message:
        'supportbundles.system.antrea.io "agent" is forbidden: User "alice" cannot get resource "supportbundles" in API group "system.antrea.io" at the cluster scope',
      details: { name: 'agent', group: 'system.antrea.io', kind: 'supportbundles' },
    });
    const sub = forbidden(alice, info('GET', '/api/v1/namespaces/ns1/pods/p1/log'));
    expect(sub.message).toBe(
      'pods "p1" is forbidden: User "alice" cannot get resource "pods/log" in API group "" in the namespace "ns1"',
    );
    expect(sub.details).toEqual({ name: 'p1', group: '', kind: 'pods' });
  });
});

describe('statusErrorHeaders', () => {
  it('asks for a bearer token on 401 only', () => {
    expect(statusErrorHeaders(ApiError.unauthorized())).toEqual({
      'content-type': 'application/json',
      'cache-control': 'no-cache, private',
      'www-authenticate': 'Bearer realm="kubernetes"',
    });
    expect(statusErrorHeaders(ApiError.internal())).not.toHaveProperty('www-authenticate');
  });
});
