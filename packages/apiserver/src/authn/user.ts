/** Who made a request, after authentication. */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra: Record<string, string[]>;
  /**
   * Beyond Antrea: the Node a bound service-account token was issued for (TokenReview's
   * `authentication.kubernetes.io/node-name` extra, present for Node- and Pod-bound tokens), so a
   * watch can be limited to that Node's span whatever fieldSelector the caller sends.
   */
  nodeName?: string;
  authenticatedBy: 'token' | 'request-header' | 'client-certificate' | 'anonymous';
}

export const NODE_NAME_EXTRA = 'authentication.kubernetes.io/node-name';

export const ANONYMOUS_USER: UserInfo = Object.freeze({
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
  extra: {},
  authenticatedBy: 'anonymous',
}) as UserInfo;

export function nodeNameFromExtra(extra: Record<string, string[]>): string | undefined {
  const values = extra[NODE_NAME_EXTRA];
  return values && values.length === 1 && values[0] ? values[0] : undefined;
}

export const AUTHENTICATED_GROUP = 'system:authenticated';

/**
 * Every authenticated user is in system:authenticated, as Kubernetes' authenticator chain adds it.
 * Without it RBAC bindings to that group (discovery for the aggregator, for one) deny the caller.
 */
export function withAuthenticatedGroup(groups: readonly string[]): string[] {
  return groups.includes(AUTHENTICATED_GROUP) ? [...groups] : [...groups, AUTHENTICATED_GROUP];
}
