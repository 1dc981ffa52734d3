// Who may use the agent API, decided as Antrea's agent decides it (k8s.io/apiserver's delegating
// authentication and authorization): bearer tokens checked by kube-apiserver through TokenReview,
// requests checked through SubjectAccessReview (nonResourceURL path + verb for /podinterfaces and
// the like, resource attributes for /apis/system.antrea.io/...), health paths open to kubelet's
// probes, and the loopback token of antctl inside the agent Pod accepted as a privileged user.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type AccessReviewer,
  ApiError,
  Authorizer,
  type Clock,
  type RequestInfo,
  resolveRequestInfo,
  systemClock,
  TokenAuthenticator,
  type TokenReviewer,
  type UserInfo,
} from '@antrea-ts/apiserver';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';

/**
 * The loopback token's user: kube's generic apiserver maps its loopback token to system:apiserver in
 * system:masters, which authorization lets through without a SubjectAccessReview.
 */
export const LOOPBACK_USER: UserInfo = Object.freeze({
  username: 'system:apiserver',
  groups: ['system:masters', 'system:authenticated'],
  extra: {},
  authenticatedBy: 'token',
}) as UserInfo;

export interface DelegatedAuthOptions {
  /** TokenReview; none: only the loopback token authenticates. */
  readonly tokenReviewer?: TokenReviewer;
  /** SubjectAccessReview; none: only the loopback user is authorized. */
  readonly accessReviewer?: AccessReviewer;
  /** The token written to the loopback token file. */
  readonly loopbackToken: string;
  readonly clock?: Clock;
  readonly logger: Logger;
}

const NO_REVIEWS: AccessReviewer = {
  review: async () => ({ allowed: false, reason: 'no delegated authorization configured' }),
};

/** Adds the check to every request of `app` (register it before the routes). */
export function registerDelegatedAuth(app: FastifyInstance, o: DelegatedAuthOptions): void {
  const log = o.logger.child({ component: 'agent-api-auth' });
  const clock = o.clock ?? systemClock;
  // The caches the controller's API server uses: 10 s for users and grants, none for denials.
  const tokens = o.tokenReviewer ? new TokenAuthenticator({ reviewer: o.tokenReviewer, clock }) : undefined;
  const authorizer = new Authorizer({ reviewer: o.accessReviewer ?? NO_REVIEWS, clock });
  const loopbackDigest = digest(o.loopbackToken);

  const authenticate = async (header: string | undefined): Promise<UserInfo | undefined> => {
    const token = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    if (!token) return undefined;
    if (timingSafeEqual(digest(token), loopbackDigest)) return LOOPBACK_USER;
    try {
      return (await tokens?.authenticate(token)) ?? undefined;
    } catch (err) {
      // As kube: a TokenReview that cannot be made fails authentication, not the request.
      log.warn({ err }, 'token review failed');
      return undefined;
    }
  };

  app.addHook('onRequest', async (req, reply) => {
    const url = new URL(req.url, 'https://localhost');
    if (authorizer.isAlwaysAllowedPath(url.pathname)) return;
    const user = await authenticate(req.headers.authorization);
    if (!user) return sendStatus(reply, ApiError.unauthorized());
    const info = resolveRequestInfo(req.method, url.pathname, url.searchParams);
    let allowed: boolean;
    try {
      const decision = await authorizer.authorize(user, info);
      allowed = decision.allowed;
      if (!allowed) log.debug({ user: user.username, reason: decision.reason }, 'forbidden');
    } catch (err) {
      log.error({ err }, 'authorization failed');
      return sendStatus(reply, ApiError.internal());
    }
    if (!allowed) return sendStatus(reply, forbidden(user, info));
  });
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Worded as Kubernetes words a denial: what was asked for, never why it was refused. */
function forbidden(user: UserInfo, info: RequestInfo): ApiError {
  const what = !info.isResourceRequest
    ? `path "${info.path}"`
    : info.apiGroup
      ? `${info.resource}.${info.apiGroup}`
      : info.resource;
  return ApiError.forbidden(user.username, info.verb, what);
}

/** A metav1.Status body, as the controller's API server answers (401 asks for a bearer token). */
function sendStatus(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.code(error.code).header('cache-control', 'no-cache, private');
  if (error.code === 401) reply.header('www-authenticate', 'Bearer realm="kubernetes"');
  return reply.type('application/json').send(error.toStatus());
}
