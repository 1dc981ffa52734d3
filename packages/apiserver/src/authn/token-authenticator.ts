import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { TtlCache } from '../ttl-cache.js';
import { nodeNameFromExtra, type UserInfo, withAuthenticatedGroup } from './user.js';

/** TokenReview's answer, reduced to what authentication needs. */
export interface TokenReviewResult {
  authenticated: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
}

/** The TokenReview call (authentication.k8s.io/v1); fakes implement it in tests. */
export interface TokenReviewer {
  review(token: string): Promise<TokenReviewResult>;
}

export interface TokenAuthenticatorOptions {
  reviewer: TokenReviewer;
  clock: Clock;
  /** Default 10 s, like kube's --authentication-token-webhook-cache-ttl. */
  successTtlMs?: number;
  /** Default 10 s: a flood of bad tokens does not become a flood of TokenReviews. */
  failureTtlMs?: number;
  /** Default 10 000 entries. */
  maxEntries?: number;
  onCache?(hit: boolean): void;
}

/**
 * Bearer tokens through TokenReview, with a short cache keyed by the token's hash (the token itself
 * is never kept). Concurrent requests with one token share one review.
 */
export class TokenAuthenticator {
  readonly #opts: TokenAuthenticatorOptions;
  readonly #cache: TtlCache<UserInfo | null>;
  readonly #inflight = new Map<string, Promise<UserInfo | null>>();

  constructor(options: TokenAuthenticatorOptions) {
    this.#opts = options;
    this.#cache = new TtlCache(options.clock, options.maxEntries ?? 10_000);
  }

  /** The user, or null when kube-apiserver says the token is not valid. Throws if the review fails. */
  async authenticate(token: string): Promise<UserInfo | null> {
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      this.#opts.onCache?.(true);
      return cached;
    }
    this.#opts.onCache?.(false);
    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = this.#review(key, token).finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    return pending;
  }

  async #review(key: string, token: string): Promise<UserInfo | null> {
    const result = await this.#opts.reviewer.review(token);
    const username = result.user?.username;
    if (!result.authenticated || !username) {
      this.#cache.set(key, null, this.#opts.failureTtlMs ?? 10_000);
      return null;
    }
    const extra = result.user?.extra ?? {};
    const nodeName = nodeNameFromExtra(extra);
    const user: UserInfo = {
      username,
      ...(result.user?.uid ? { uid: result.user.uid } : {}),
      groups: withAuthenticatedGroup(result.user?.groups ?? []),
      extra,
      ...(nodeName ? { nodeName } : {}),
      authenticatedBy: 'token',
    };
    this.#cache.set(key, user, this.#opts.successTtlMs ?? 10_000);
    return user;
  }
}
