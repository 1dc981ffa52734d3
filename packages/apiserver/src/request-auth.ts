// The per-request steps of k8s.io/apiserver's delegated authentication and authorization, shared by
// the controller's ApiServer and the agent's API: read the bearer token, turn a failed TokenReview
// into a 401, ask the Authorizer, and word a refusal as Kubernetes does.
import type { Logger } from 'pino';
import { ANONYMOUS_USER, type UserInfo } from './authn/user.js';
import type { Authorizer } from './authz/authorizer.js';
import type { RequestInfo } from './request-info.js';
import { ApiError } from './status.js';

/** How a bearer-token authentication ended (the controller's authentication metric counts these). */
export type TokenAuthResult = 'token' | 'failed' | 'error';

/**
 * The bearer token of an `Authorization` header checked by `check` (TokenReview and its cache). No
 * token, a token `check` does not know, or a review that cannot be made (logged) authenticate no one.
 */
export async function authenticateBearerToken(
  authorization: string | undefined,
  check: (token: string) => Promise<UserInfo | null | undefined>,
  log: Logger,
): Promise<{ user?: UserInfo; result: TokenAuthResult }> {
  const token = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (!token) return { result: 'failed' };
  try {
    const user = await check(token);
    return user ? { user, result: 'token' } : { result: 'failed' };
  } catch (error) {
    // Like kube: a TokenReview that cannot be made is an authentication failure, not a 500.
    log.warn({ err: error }, 'token review failed');
    return { result: 'error' };
  }
}

/**
 * Who may make the request: anonymous on the authorizer's always-allowed paths, else the user
 * `authenticate` finds, if the authorizer allows it. Throws the ApiError to answer with: 401 for no
 * user, 403 worded as Kubernetes words a denial, 500 when authorization cannot be decided.
 */
export async function authenticateAndAuthorize(
  authorizer: Authorizer,
  info: RequestInfo,
  authenticate: () => Promise<UserInfo | undefined>,
  log: Logger,
): Promise<UserInfo> {
  if (authorizer.isAlwaysAllowedPath(info.path)) return ANONYMOUS_USER;
  const user = await authenticate();
  if (!user) throw ApiError.unauthorized();
  let decision: { allowed: boolean; reason?: string };
  try {
    decision = await authorizer.authorize(user, info);
  } catch (error) {
    log.error({ err: error }, 'authorization failed');
    throw ApiError.internal();
  }
  if (!decision.allowed) {
    log.debug({ user: user.username, reason: decision.reason }, 'forbidden');
    throw forbidden(user, info);
  }
  return user;
}

/**
 * A refusal worded as kube-apiserver words it (apierrors.NewForbidden around the authorizer's
 * "User ... cannot ..." sentence): what was asked for and where, never why it was refused.
 */
export function forbidden(user: UserInfo, info: RequestInfo): ApiError {
  const who = `User "${user.username}" cannot ${info.verb}`;
  if (!info.isResourceRequest) return new ApiError(403, 'Forbidden', `forbidden: ${who} path "${info.path}"`);
  const qualified = info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  const scope = info.namespace ? `in the namespace "${info.namespace}"` : 'at the cluster scope';
  const subject = info.name ? `${qualified} "${info.name}"` : qualified;
  return new ApiError(
    403,
    'Forbidden',
    `${subject} is forbidden: ${who} resource "${resource}" in API group "${info.apiGroup}" ${scope}`,
    { ...(info.name ? { name: info.name } : {}), group: info.apiGroup, kind: info.resource },
  );
}

/**
 * The headers of a metav1.Status error reply. Kubernetes asks for a bearer token on 401, which is
 * what makes kubectl report "Unauthorized".
 */
export function statusErrorHeaders(error: ApiError): Record<string, string> {
  return {
    'content-type': 'application/json',
    'cache-control': 'no-cache, private',
    ...(error.code === 401 ? { 'www-authenticate': 'Bearer realm="kubernetes"' } : {}),
  };
}
