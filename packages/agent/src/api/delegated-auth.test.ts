import type { AccessReviewer, TokenReviewer } from '@antrea-ts/apiserver';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDelegatedAuth } from './delegated-auth.js';

const logger = pino({ level: 'silent' });
const BUNDLES = '/apis/system.antrea.io/v1beta1/supportbundles';

/**
 * alice is allowed GET /podinterfaces and to create supportbundles.system.antrea.io only; bob is
 * known but allowed nothing.
 */
function reviewers(calls: string[]): { tokenReviewer: TokenReviewer; accessReviewer: AccessReviewer } {
  return {
    tokenReviewer: {
      review: async (token) => {
        calls.push(`token:${token}`);
        return token === 'alice-token' || token === 'bob-token'
          ? { authenticated: true, user: { username: token.replace('-token', ''), groups: [] } }
          : { authenticated: false };
      },
    },
    accessReviewer: {
      review: async (user, info) => {
        const what = info.isResourceRequest
          ? `${info.resource}.${info.apiGroup}/${info.apiVersion}:${info.name}`
          : info.path;
        calls.push(`sar:${user.username}:${info.verb}:${what}`);
        return {
          allowed:
            user.username === 'alice' &&
            (info.path === '/podinterfaces' ||
              (info.isResourceRequest && info.resource === 'supportbundles' && info.verb === 'create')),
        };
      },
    },
  };
}

describe('registerDelegatedAuth', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => app?.close());

  async function build(withReviewers: boolean, calls: string[] = []): Promise<FastifyInstance> {
    app = Fastify();
    registerDelegatedAuth(app, {
      ...(withReviewers ? reviewers(calls) : {}),
      loopbackToken: 'loop',
      logger,
    });
    for (const path of ['/livez', '/readyz', '/podinterfaces', '/ovsflows']) app.get(path, async () => 'ok');
    app.post(BUNDLES, async () => 'ok');
    app.get(`${BUNDLES}/:name`, async () => 'ok');
    return app;
  }

  const get = (a: FastifyInstance, url: string, token?: string) =>
    a.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('lets health probes in without credentials', async () => {
    const a = await build(true);
    expect((await get(a, '/livez')).statusCode).toBe(200);
    expect((await get(a, '/readyz')).statusCode).toBe(200);
  });

  it('answers 401 with a Kubernetes Status and a bearer challenge without a valid token', async () => {
    const a = await build(true);
    for (const token of [undefined, 'forged']) {
      const r = await get(a, '/podinterfaces', token);
      expect(r.statusCode).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer realm="kubernetes"');
      expect(r.json()).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
    }
  });

  it('asks SubjectAccessReview about the nonResourceURL and verb, and caches grants', async () => {
    const calls: string[] = [];
    const a = await build(true, calls);
    expect((await get(a, '/podinterfaces?name=x', 'alice-token')).statusCode).toBe(200);
    expect((await get(a, '/podinterfaces', 'alice-token')).statusCode).toBe(200);
    expect(calls).toEqual(['token:alice-token', 'sar:alice:get:/podinterfaces']);
    const denied = await get(a, '/ovsflows', 'alice-token');
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({
      reason: 'Forbidden',
      code: 403,
      message: 'forbidden: User "alice" cannot get path "/ovsflows"',
    });
    expect((await get(a, '/podinterfaces', 'bob-token')).statusCode).toBe(403);
  });

  it('asks SubjectAccessReview about resource attributes for /apis paths (the support bundle API)', async () => {
    const calls: string[] = [];
    const a = await build(true, calls);
    const post = await a.inject({
      method: 'POST',
      url: BUNDLES,
      headers: { authorization: 'Bearer alice-token' },
    });
    expect(post.statusCode).toBe(200);
    const read = await get(a, `${BUNDLES}/agent`, 'alice-token');
    expect(read.statusCode).toBe(403);
    expect(read.json()).toMatchObject({ reason: 'Forbidden', code: 403 });
    // Worded as the controller's API server words it: the name, the group and the scope.
    expect(read.headers['cache-control']).toBe('no-cache, private');
    expect(read.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'supportbundles.system.antrea.io "agent" is forbidden: User "alice" cannot get resource "supportbundles" in API group "system.antrea.io" at the cluster scope',
      reason: 'Forbidden',
      details: { name: 'agent', group: 'system.antrea.io', kind: 'supportbundles' },
      code: 403,
    });
    expect(calls).toEqual([
      'token:alice-token',
      'sar:alice:create:supportbundles.system.antrea.io/v1beta1:',
      'sar:alice:get:supportbundles.system.antrea.io/v1beta1:agent',
    ]);
  });

  it('accepts the loopback token as a privileged user without any review', async () => {
    const calls: string[] = [];
    const a = await build(true, calls);
    expect((await get(a, '/ovsflows', 'loop')).statusCode).toBe(200);
    expect(calls).toEqual([]);
  });

  it('without reviewers, only the loopback token gets in', async () => {
    const a = await build(false);
    expect((await get(a, '/podinterfaces', 'loop')).statusCode).toBe(200);
    expect((await get(a, '/podinterfaces', 'alice-token')).statusCode).toBe(401);
  });

  it('a TokenReview that fails is a 401, not a 500', async () => {
    app = Fastify();
    registerDelegatedAuth(app, {
      tokenReviewer: { review: async () => Promise.reject(new Error('kube-apiserver down')) },
      loopbackToken: 'loop',
      logger,
    });
    app.get('/podinterfaces', async () => 'ok');
    expect((await get(app, '/podinterfaces', 'alice-token')).statusCode).toBe(401);
  });

  it('a SubjectAccessReview that fails is a 500 InternalError', async () => {
    app = Fastify();
    registerDelegatedAuth(app, {
      ...reviewers([]),
      accessReviewer: { review: async () => Promise.reject(new Error('kube-apiserver down')) },
      loopbackToken: 'loop',
      logger,
    });
    app.get('/podinterfaces', async () => 'ok');
    const r = await get(app, '/podinterfaces', 'alice-token');
    expect(r.statusCode).toBe(500);
    expect(r.json()).toMatchObject({ reason: 'InternalError', code: 500 });
  });
});
