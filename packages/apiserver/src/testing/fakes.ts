import type { TokenReviewer, TokenReviewResult } from '../authn/token-authenticator.js';
import type { UserInfo } from '../authn/user.js';
import type { AccessReviewer, AccessReviewResult } from '../authz/authorizer.js';
import type { RequestInfo } from '../request-info.js';

/** TokenReview double: a table of tokens, and a count of calls. */
export class FakeTokenReviewer implements TokenReviewer {
  calls = 0;
  failNext = false;
  constructor(readonly tokens: Map<string, TokenReviewResult['user']> = new Map()) {}

  async review(token: string): Promise<TokenReviewResult> {
    this.calls++;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('apiserver unreachable');
    }
    const user = this.tokens.get(token);
    return user ? { authenticated: true, user } : { authenticated: false };
  }
}

/** SubjectAccessReview double: allows what `rule` allows, counts calls. */
export class FakeAccessReviewer implements AccessReviewer {
  calls = 0;
  constructor(public rule: (user: UserInfo, info: RequestInfo) => boolean) {}

  async review(user: UserInfo, info: RequestInfo): Promise<AccessReviewResult> {
    this.calls++;
    return this.rule(user, info) ? { allowed: true } : { allowed: false, reason: 'no RBAC rule' };
  }
}
