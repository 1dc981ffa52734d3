import {
  ApiregistrationV1Api,
  AuthenticationV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1APIService,
} from '@kubernetes/client-node';
import type { TokenReviewer, TokenReviewResult } from '../authn/token-authenticator.js';
import type { UserInfo } from '../authn/user.js';
import type { AccessReviewer, AccessReviewResult } from '../authz/authorizer.js';
import { ApiServerError } from '../errors.js';
import type { RequestInfo } from '../request-info.js';

/** ConfigMap data access, narrow enough to fake. */
export interface ConfigMapClient {
  get(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  /** Creates or replaces the ConfigMap's data (other fields of an existing object are kept). */
  put(namespace: string, name: string, data: Record<string, string>): Promise<void>;
}

/** APIService access (apiregistration.k8s.io/v1). */
export interface APIServiceClient {
  get(name: string): Promise<V1APIService | undefined>;
  /** Creates, or replaces the spec of an existing object (labels merged). */
  put(apiService: V1APIService): Promise<void>;
}

function status(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

function reviewFailed(what: string, error: unknown): ApiServerError {
  return new ApiServerError('APISERVER_REVIEW_FAILED', `${what} failed`, { cause: error });
}

export class KubeTokenReviewer implements TokenReviewer {
  readonly #api: AuthenticationV1Api;
  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(AuthenticationV1Api);
  }

  async review(token: string): Promise<TokenReviewResult> {
    try {
      const res = await this.#api.createTokenReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      const user = res.status?.user;
      return {
        authenticated: res.status?.authenticated === true,
        ...(user
          ? {
              user: {
                ...(user.username ? { username: user.username } : {}),
                ...(user.uid ? { uid: user.uid } : {}),
                groups: user.groups ?? [],
                extra: user.extra ?? {},
              },
            }
          : {}),
      };
    } catch (error) {
      throw reviewFailed('TokenReview', error);
    }
  }
}

export class KubeAccessReviewer implements AccessReviewer {
  readonly #api: AuthorizationV1Api;
  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(AuthorizationV1Api);
  }

  async review(user: UserInfo, info: RequestInfo): Promise<AccessReviewResult> {
    try {
      const res = await this.#api.createSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups,
            extra: user.extra,
            ...(info.isResourceRequest
              ? {
                  resourceAttributes: {
                    verb: info.verb,
                    group: info.apiGroup,
                    version: info.apiVersion,
                    resource: info.resource,
                    subresource: info.subresource,
                    namespace: info.namespace,
                    name: info.name,
                  },
                }
              : { nonResourceAttributes: { path: info.path, verb: info.verb } }),
          },
        },
      });
      return {
        allowed: res.status?.allowed === true && res.status?.denied !== true,
        ...(res.status?.reason ? { reason: res.status.reason } : {}),
      };
    } catch (error) {
      throw reviewFailed('SubjectAccessReview', error);
    }
  }
}

export class KubeConfigMapClient implements ConfigMapClient {
  readonly #api: CoreV1Api;
  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(CoreV1Api);
  }

  async get(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    try {
      return (await this.#api.readNamespacedConfigMap({ namespace, name })).data ?? {};
    } catch (error) {
      if (status(error) === 404) return undefined;
      throw error;
    }
  }

  async put(namespace: string, name: string, data: Record<string, string>): Promise<void> {
    // Two tries: a concurrent writer between read and replace costs one more round trip.
    for (let attempt = 0; ; attempt++) {
      try {
        const existing = await this.#api
          .readNamespacedConfigMap({ namespace, name })
          .catch((error: unknown) => {
            if (status(error) === 404) return undefined;
            throw error;
          });
        if (!existing) {
          await this.#api.createNamespacedConfigMap({
            namespace,
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data },
          });
        } else {
          await this.#api.replaceNamespacedConfigMap({ namespace, name, body: { ...existing, data } });
        }
        return;
      } catch (error) {
        if (attempt < 1 && (status(error) === 409 || status(error) === 404)) continue;
        throw error;
      }
    }
  }
}

export class KubeAPIServiceClient implements APIServiceClient {
  readonly #api: ApiregistrationV1Api;
  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(ApiregistrationV1Api);
  }

  async get(name: string): Promise<V1APIService | undefined> {
    try {
      return await this.#api.readAPIService({ name });
    } catch (error) {
      if (status(error) === 404) return undefined;
      throw error;
    }
  }

  async put(apiService: V1APIService): Promise<void> {
    const name = apiService.metadata!.name!;
    for (let attempt = 0; ; attempt++) {
      try {
        const existing = await this.get(name);
        if (!existing) {
          await this.#api.createAPIService({ body: apiService });
        } else {
          await this.#api.replaceAPIService({
            name,
            body: {
              ...existing,
              metadata: {
                ...existing.metadata,
                labels: { ...existing.metadata?.labels, ...apiService.metadata?.labels },
              },
              spec: apiService.spec!,
            },
          });
        }
        return;
      } catch (error) {
        if (attempt < 1 && (status(error) === 409 || status(error) === 404)) continue;
        throw error;
      }
    }
  }
}
