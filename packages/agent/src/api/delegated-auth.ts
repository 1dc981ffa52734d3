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
  authenticateAndAuthorize,
  authenticateBearerToken,
  type Clock,
  resolveRequestInfo,
  statusErrorHeaders,
  systemClock,
  TokenAuthenticator,
  type TokenReviewer,
  type UserInfo,
} from '@antrea-ts/apiserver';
import type { FastifyInstance } from 'fastify';
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

  // The loopback token first, then TokenReview.
  const check = async (token: string): Promise<UserInfo | null | undefined> =>
    timingSafeEqual(digest(token), loopbackDigest) ? LOOPBACK_USER : tokens?.authenticate(token);

  app.addHook('onRequest', async (req, reply) => {
    const url = new URL(req.url, 'https://localhost');
    const info = resolveRequestInfo(req.method, url.pathname, url.searchParams);
    try {
      await authenticateAndAuthorize(
        authorizer,
        info,
        async () => (await authenticateBearerToken(req.headers.authorization, check, log)).user,
        log,
      );
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return reply.code(err.code).headers(statusErrorHeaders(err)).send(err.toStatus());
    }
  });
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
