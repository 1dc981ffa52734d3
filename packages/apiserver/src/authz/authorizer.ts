import type { UserInfo } from '../authn/user.js';
import type { Clock } from '../clock.js';
import type { RequestInfo } from '../request-info.js';
import { TtlCache } from '../ttl-cache.js';

export interface AccessReviewResult {
  allowed: boolean;
  /** For logs only: never sent to the client. */
  reason?: string;
}

/** The SubjectAccessReview call (authorization.k8s.io/v1); fakes implement it in tests. */
export interface AccessReviewer {
  review(user: UserInfo, info: RequestInfo): Promise<AccessReviewResult>;
}

export interface AuthorizerOptions {
  reviewer: AccessReviewer;
  clock: Clock;
  /** Default 10 s, like kube's --authorization-webhook-cache-authorized-ttl. */
  allowedTtlMs?: number;
  /** Default 0: a grant just added through RBAC takes effect on the next request. */
  deniedTtlMs?: number;
  maxEntries?: number;
  /** Groups allowed everything without a review; default system:masters, as kube's generic apiserver does. */
  alwaysAllowGroups?: readonly string[];
  /** Paths anyone may reach; a trailing `*` matches a prefix. Default /healthz, /livez, /readyz (+ subpaths). */
  alwaysAllowPaths?: readonly string[];
  onCache?(hit: boolean): void;
}

export const DEFAULT_ALWAYS_ALLOW_PATHS = [
  '/healthz',
  '/healthz/*',
  '/livez',
  '/livez/*',
  '/readyz',
  '/readyz/*',
];

/** Delegated authorization: SubjectAccessReview, with allowed decisions cached briefly. */
export class Authorizer {
  readonly #opts: AuthorizerOptions;
  readonly #cache: TtlCache<boolean>;
  readonly #alwaysAllowGroups: ReadonlySet<string>;

  constructor(options: AuthorizerOptions) {
    this.#opts = options;
    this.#cache = new TtlCache(options.clock, options.maxEntries ?? 10_000);
    this.#alwaysAllowGroups = new Set(options.alwaysAllowGroups ?? ['system:masters']);
  }

  /** Paths that skip authentication and authorization (health probes from kubelet). */
  isAlwaysAllowedPath(path: string): boolean {
    return (this.#opts.alwaysAllowPaths ?? DEFAULT_ALWAYS_ALLOW_PATHS).some((p) =>
      p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p,
    );
  }

  async authorize(user: UserInfo, info: RequestInfo): Promise<AccessReviewResult> {
    if (user.groups.some((g) => this.#alwaysAllowGroups.has(g))) return { allowed: true };
    const key = cacheKey(user, info);
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      this.#opts.onCache?.(true);
      return { allowed: cached };
    }
    this.#opts.onCache?.(false);
    const result = await this.#opts.reviewer.review(user, info);
    this.#cache.set(
      key,
      result.allowed,
      result.allowed ? (this.#opts.allowedTtlMs ?? 10_000) : (this.#opts.deniedTtlMs ?? 0),
    );
    return result;
  }
}

function cacheKey(user: UserInfo, info: RequestInfo): string {
  const extra = Object.keys(user.extra)
    .sort()
    .map((k) => [k, user.extra[k]]);
  const attrs = info.isResourceRequest
    ? [info.verb, info.apiGroup, info.apiVersion, info.resource, info.subresource, info.namespace, info.name]
    : [info.verb, info.path];
  return JSON.stringify([user.username, user.uid ?? '', [...user.groups].sort(), extra, attrs]);
}
