import { LOOPBACK_TOKEN_PATH } from '@antrea-ts/apis';
import { AntctlError } from '../errors.js';

const LOOPBACK_TOKEN_HINT = `read from ${LOOPBACK_TOKEN_PATH} (or the file ANTCTL_AGENT_TOKEN_FILE names)`;

/** Which hop a request takes; the advice on failure depends on it. */
export type Route =
  /** Kubernetes API → APIService → antrea-controller (controller mode from outside the cluster). */
  | { readonly kind: 'aggregated'; readonly apiService: string }
  /** Plain Kubernetes API (CRDs such as Traceflow, Nodes, ConfigMaps). */
  | { readonly kind: 'kube' }
  /** The controller's own API server (loopback in its Pod, or its Node IP from outside). */
  | { readonly kind: 'controller' }
  /** The agent's local API. */
  | { readonly kind: 'agent' };

export interface FailureContext {
  readonly route: Route;
  /** Base URL that was called. */
  readonly target: string;
  /** What the command asked for, e.g. `networkpolicy "np1"` or `networkpolicies`. */
  readonly subject: string;
  /** Set when the request named one object: a 404 then means "no such object". */
  readonly name?: string;
}

interface K8sStatus {
  kind?: string;
  message?: string;
  reason?: string;
  details?: { name?: string; kind?: string };
}

function parseStatus(body: Buffer): K8sStatus | undefined {
  try {
    const v = JSON.parse(body.toString('utf8')) as K8sStatus;
    return typeof v === 'object' && v !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The reason the agent API gives for refusing a request (`{"error": ...}`), if that is the body. */
function agentReason(body: Buffer): string | undefined {
  try {
    const v = JSON.parse(body.toString('utf8')) as { error?: unknown; statusCode?: unknown };
    // fastify's own "route not found" carries statusCode too: that one is an unserved path.
    return typeof v.error === 'string' && v.statusCode === undefined ? v.error : undefined;
  } catch {
    return undefined;
  }
}

function serverText(body: Buffer): string {
  const st = parseStatus(body);
  if (st?.message) return st.message;
  const reason = agentReason(body);
  if (reason !== undefined) return reason;
  const text = body.toString('utf8').trim();
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

function apiServiceAdvice(apiService: string): string {
  return (
    `is the APIService ${apiService} available? Check with ` +
    `"kubectl get apiservice ${apiService}" and "kubectl -n kube-system get pods -l component=antrea-controller"`
  );
}

function unreachableAdvice(ctx: FailureContext): string {
  switch (ctx.route.kind) {
    case 'aggregated':
    case 'kube':
      return `cannot reach the Kubernetes API at ${ctx.target}: check --kubeconfig / KUBECONFIG and that the cluster is up ("kubectl cluster-info")`;
    case 'controller':
      return `cannot reach the Antrea controller API at ${ctx.target}: is antrea-controller running? ("kubectl -n kube-system get pods -l component=antrea-controller")`;
    case 'agent':
      return `cannot reach the Antrea agent API at ${ctx.target}: is antrea-agent running on this Node? (agent mode; --agent-address points elsewhere, --mode controller goes through the Kubernetes API)`;
  }
}

/** A request that got no HTTP answer: connection refused, DNS, TLS, timeout. */
export function networkFailure(err: unknown, ctx: FailureContext): AntctlError {
  const code = (err as { code?: string }).code;
  const detail = code ? `${code}: ${(err as Error).message}` : String((err as Error)?.message ?? err);
  return new AntctlError('ANTCTL_UNREACHABLE', `${unreachableAdvice(ctx)} (${detail})`, { cause: err });
}

/** A request the server answered with a non-2xx status. */
export function httpFailure(status: number, body: Buffer, ctx: FailureContext): AntctlError {
  const st = parseStatus(body);
  const text = serverText(body);
  const opts = { status };
  if (status === 401 && ctx.route.kind === 'agent') {
    // The agent API takes the agent's loopback token (agent mode) or a token kube-apiserver knows
    // (the antctl ServiceAccount's, from supportbundle), never the kubeconfig's client certificate.
    return new AntctlError(
      'ANTCTL_SERVER_ERROR',
      `the Antrea agent API at ${ctx.target} did not accept the token (401 Unauthorized: ${text}): in agent mode antctl presents the agent's loopback token, ${LOOPBACK_TOKEN_HINT}; run it as root on the agent's Node (or in its Pod)`,
      opts,
    );
  }
  if (status === 401) {
    return new AntctlError(
      'ANTCTL_SERVER_ERROR',
      `the server at ${ctx.target} did not accept your credentials (401 Unauthorized: ${text}): refresh the user in your kubeconfig`,
      opts,
    );
  }
  if (status === 403) {
    return new AntctlError(
      'ANTCTL_SERVER_ERROR',
      `not allowed to get ${ctx.subject} (403 Forbidden: ${text}): your kubeconfig user needs RBAC permission for it`,
      opts,
    );
  }
  if (status === 404) {
    // A named object that does not exist comes back as a Status naming it; a group/version the
    // Kubernetes API does not serve at all comes back as a bare "could not find the requested
    // resource", which for Antrea means the APIService is missing.
    const namedMiss = ctx.name !== undefined && st?.details?.name === ctx.name;
    if (namedMiss || (ctx.name !== undefined && ctx.route.kind === 'agent')) {
      return new AntctlError('ANTCTL_NOT_FOUND', `${ctx.subject} not found (${text})`, opts);
    }
    // The agent answered for the path and named what it did not find (a Pod, a port).
    if (ctx.route.kind === 'agent' && agentReason(body) !== undefined) {
      return new AntctlError('ANTCTL_NOT_FOUND', text, opts);
    }
    if (ctx.route.kind === 'aggregated') {
      return new AntctlError(
        'ANTCTL_SERVER_ERROR',
        `the Kubernetes API does not serve ${ctx.subject} (404: ${text}): is Antrea installed, and ${apiServiceAdvice(ctx.route.apiService)}`,
        opts,
      );
    }
    return new AntctlError(
      'ANTCTL_SERVER_ERROR',
      `${ctx.target} does not serve ${ctx.subject} (404: ${text}): this server version may not support the command`,
      opts,
    );
  }
  if (ctx.route.kind === 'aggregated' && (status === 503 || status === 502)) {
    return new AntctlError(
      'ANTCTL_UNREACHABLE',
      `cannot reach the Antrea controller through the Kubernetes API (${status}: ${text}): ${apiServiceAdvice(ctx.route.apiService)}`,
      opts,
    );
  }
  return new AntctlError(
    'ANTCTL_SERVER_ERROR',
    `request for ${ctx.subject} failed (${status}: ${text})`,
    opts,
  );
}
