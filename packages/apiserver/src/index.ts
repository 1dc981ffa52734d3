export {
  type AuthenticationConfig,
  authenticateClientCert,
  EMPTY_AUTHENTICATION_CONFIG,
  parseAuthenticationConfig,
  verifyClientCert,
} from './authn/client-cert.js';
export {
  TokenAuthenticator,
  type TokenAuthenticatorOptions,
  type TokenReviewer,
  type TokenReviewResult,
} from './authn/token-authenticator.js';
export { ANONYMOUS_USER, NODE_NAME_EXTRA, type UserInfo } from './authn/user.js';
export {
  type AccessReviewer,
  type AccessReviewResult,
  Authorizer,
  type AuthorizerOptions,
  DEFAULT_ALWAYS_ALLOW_PATHS,
} from './authz/authorizer.js';
export {
  type CertificateSource,
  SelfSignedCertManager,
  type SelfSignedCertManagerOptions,
  type ServingCertificate,
  serviceDnsNames,
} from './certs/cert-manager.js';
export { parseCertBundle } from './certs/self-signed.js';
export { type Clock, FakeClock, systemClock } from './clock.js';
export {
  type ApiCodec,
  type ApiObject,
  codecForContentType,
  jsonCodec,
  negotiate,
  WATCH_EVENT_TYPES,
  type WatchEventType,
} from './codec.js';
export { API_SERVER_ERROR_CODES, ApiServerError, type ApiServerErrorCode } from './errors.js';
export { type HealthCheck, HealthChecks, type HealthReport } from './health.js';
export {
  ANTREA_API_GROUP_VERSIONS,
  apiServiceName,
  buildApiServices,
  CaBundlePublisher,
  type CaBundlePublisherOptions,
  type GroupVersion,
  registerApiServices,
  type ServiceRef,
} from './kube/apiservices.js';
export {
  AuthenticationConfigSource,
  type AuthenticationConfigSourceOptions,
} from './kube/authentication-config.js';
export {
  type APIServiceClient,
  type ConfigMapClient,
  KubeAccessReviewer,
  KubeAPIServiceClient,
  KubeConfigMapClient,
  KubeTokenReviewer,
} from './kube/kube-clients.js';
export { parseListOptions } from './list-options.js';
export { ApiServerMetrics } from './metrics.js';
export { nodeScope } from './node-scope.js';
export {
  type ApiRequest,
  type ListOptions,
  RawResponse,
  type ResourceDefinition,
  type ResourceHandler,
  ResourceRegistry,
  type SubresourceDefinition,
  type WatchHandle,
  type WatchSink,
} from './registry.js';
export {
  authenticateAndAuthorize,
  authenticateBearerToken,
  statusErrorHeaders,
  type TokenAuthResult,
} from './request-auth.js';
export {
  type NonResourceRequestInfo,
  type RequestInfo,
  type ResourceRequestInfo,
  resolveRequestInfo,
  type Verb,
} from './request-info.js';
export {
  type FieldRequirement,
  FieldSelector,
  type LabelRequirement,
  LabelSelector,
  parseFieldSelector,
  parseLabelSelector,
} from './selectors.js';
export {
  ApiServer,
  type ApiServerOptions,
  type AuthenticationConfigProvider,
  type PlainEndpoint,
  type PlainRequest,
  type PlainResponse,
} from './server.js';
export { ApiError, type Status, type StatusDetails, type StatusReason, tooLarge } from './status.js';
export { TtlCache } from './ttl-cache.js';
export { FrameCache } from './watch/frame-cache.js';
export {
  DEFAULT_WATCH_LIMITS,
  type FrameTarget,
  type WatchCloseReason,
  WatchStream,
  type WatchStreamLimits,
  type WatchStreamObserver,
} from './watch/watch-stream.js';
export { type CertificateTemplate, type Issuer, issueCertificate } from './x509/certificate.js';
