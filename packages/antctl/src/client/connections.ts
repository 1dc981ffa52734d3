import type { RequestOptions } from 'node:https';
import { join } from 'node:path';
import { AGENT_API_PORT, CONTROLLER_API_PORT, LOOPBACK_TOKEN_PATH } from '@antrea-ts/apis';
import { KubeConfig } from '@kubernetes/client-node';
import { AntctlError } from '../errors.js';
import type { ModeDecision } from '../mode.js';
import { type ApiClient, type ApiRequest, type ApiResponse, HttpApiClient } from './api-client.js';
import { type FailureContext, httpFailure, networkFailure, type Route } from './failures.js';

/** Agent mode default: the agent's HTTPS API on the Node's loopback, as Antrea's antctl dials it. */
export const DEFAULT_AGENT_ADDRESS = `https://127.0.0.1:${AGENT_API_PORT}`;
export const CONTROLLER_APISERVICE = 'v1beta2.controlplane.antrea.io';

/** Everything connections need from the outside world, injected so tests control it. */
export interface ConnectionEnv {
  /** --kubeconfig */
  readonly kubeconfig?: string;
  /** KUBECONFIG (colon-separated; the first existing file is used). */
  readonly kubeconfigEnv?: string;
  readonly homeDir?: string;
  /** --server: replaces the host of whichever API the command talks to. */
  readonly server?: string;
  /** --agent-address */
  readonly agentAddress?: string;
  /** The agent's loopback token file, when not at LOOPBACK_TOKEN_PATH (ANTCTL_AGENT_TOKEN_FILE). */
  readonly agentTokenFile?: string | undefined;
  /** --insecure: skip TLS verification when connecting directly to Antrea's API servers. */
  readonly insecure?: boolean;
  /** --timeout in ms; 0 = none. */
  readonly timeoutMs: number;
  fileExists(path: string): boolean;
  readFile(path: string): string;
}

/** The servers one antctl run may talk to, built lazily. */
export interface Connections {
  readonly mode: ModeDecision;
  /** The Kubernetes API (CRDs, Nodes, ConfigMaps). */
  kube(): Promise<ApiClient>;
  /** Where controller resource paths (/apis/controlplane.antrea.io/...) are served. */
  controller(): Promise<{ client: ApiClient; route: Route }>;
  /** The controller's own API server, for non-resource paths (/featuregates, /endpoint, /loglevel). */
  controllerDirect(): Promise<ApiClient>;
  /** The local agent API. */
  agent(): Promise<ApiClient>;
}

function loadKubeConfig(env: ConnectionEnv): KubeConfig {
  const kc = new KubeConfig();
  let path: string | undefined;
  if (env.kubeconfig) {
    if (!env.fileExists(env.kubeconfig)) {
      throw new AntctlError(
        'ANTCTL_KUBECONFIG',
        `failed to resolve kubeconfig: kubeconfig file does not exist at path '${env.kubeconfig}'`,
      );
    }
    path = env.kubeconfig;
  } else {
    const candidates = (env.kubeconfigEnv ?? '').split(':').filter((p) => p.trim() !== '');
    if (candidates.length === 0 && env.homeDir) candidates.push(join(env.homeDir, '.kube', 'config'));
    path = candidates.find((p) => env.fileExists(p));
    if (path === undefined) {
      try {
        // Like client-go's InClusterConfig: a Pod with a service account needs no kubeconfig.
        kc.loadFromCluster();
        if (kc.getCurrentCluster()?.server && !kc.getCurrentCluster()?.server.includes('undefined'))
          return kc;
      } catch {
        // fall through to the error below
      }
      throw new AntctlError(
        'ANTCTL_KUBECONFIG',
        `failed to resolve kubeconfig: neither a kubeconfig file was found at '${candidates.join(':') || '~/.kube/config'}' nor is this a Pod with a service account: pass --kubeconfig or set KUBECONFIG`,
      );
    }
  }
  try {
    kc.loadFromFile(path);
  } catch (err) {
    throw new AntctlError(
      'ANTCTL_KUBECONFIG',
      `failed to build kubeconfig from file at path '${path}': ${(err as Error).message}`,
      { cause: err },
    );
  }
  if (!kc.getCurrentCluster()) {
    throw new AntctlError(
      'ANTCTL_KUBECONFIG',
      `kubeconfig '${path}' has no current context with a cluster: run "kubectl config use-context <name>"`,
    );
  }
  return kc;
}

async function kubeClient(env: ConnectionEnv, kc: KubeConfig): Promise<HttpApiClient> {
  const tls: RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  // client-node builds an https.Agent from the same material; we pass the material itself and
  // use no pooled agent.
  delete tls.agent;
  const cluster = kc.getCurrentCluster();
  const baseUrl = env.server || cluster?.server || '';
  return new HttpApiClient({ baseUrl, tls, timeoutMs: env.timeoutMs });
}

function loopbackClient(
  env: ConnectionEnv,
  port: number,
  fallback?: string,
  tokenPath = LOOPBACK_TOKEN_PATH,
): HttpApiClient {
  const headers: Record<string, string> = {};
  if (env.fileExists(tokenPath)) {
    headers['authorization'] = `Bearer ${env.readFile(tokenPath).trim()}`;
  }
  const baseUrl = env.server || fallback || `https://127.0.0.1:${port}`;
  // The in-Pod API servers use self-signed certificates made at process start, so antctl beside
  // them has no trust anchor but the server itself; Antrea's antctl skips verification here too.
  // The loopback token it sends is worth nothing to any other server.
  return new HttpApiClient({
    baseUrl,
    tls: { rejectUnauthorized: false },
    headers,
    timeoutMs: env.timeoutMs,
  });
}

interface ControllerInfoLite {
  nodeRef?: { name?: string };
  podRef?: { namespace?: string };
  apiPort?: number;
}
interface NodeLite {
  status?: { addresses?: { type: string; address: string }[] };
}

export function createConnections(mode: ModeDecision, env: ConnectionEnv): Connections {
  let kc: KubeConfig | undefined;
  let kube: Promise<HttpApiClient> | undefined;
  const getKube = (): Promise<HttpApiClient> => {
    if (kube === undefined) {
      try {
        kc ??= loadKubeConfig(env);
        kube = kubeClient(env, kc);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return kube;
  };

  return {
    mode,
    kube: getKube,
    async controller() {
      if (mode.inPod && mode.mode === 'controller') {
        return { client: loopbackClient(env, CONTROLLER_API_PORT), route: { kind: 'controller' } };
      }
      return { client: await getKube(), route: { kind: 'aggregated', apiService: CONTROLLER_APISERVICE } };
    },
    async controllerDirect() {
      if (mode.inPod && mode.mode === 'controller') return loopbackClient(env, CONTROLLER_API_PORT);
      // From outside the cluster Antrea's antctl reaches the controller at its Node's IP and the
      // API port it reports in AntreaControllerInfo, trusting the CA in the antrea-ca ConfigMap and
      // presenting the kubeconfig user's credentials.
      const k = await getKube();
      const info = await getJson<ControllerInfoLite>(
        k,
        { path: '/apis/crd.antrea.io/v1beta1/antreacontrollerinfos/antrea-controller' },
        {
          route: { kind: 'kube' },
          target: k.target,
          subject: 'antreacontrollerinfo "antrea-controller"',
          name: 'antrea-controller',
        },
      );
      const nodeName = info.nodeRef?.name;
      if (!nodeName) {
        throw new AntctlError(
          'ANTCTL_BAD_RESPONSE',
          'AntreaControllerInfo "antrea-controller" names no Node yet: is antrea-controller running? ("kubectl -n kube-system get pods -l component=antrea-controller")',
        );
      }
      const node = await getJson<NodeLite>(
        k,
        { path: `/api/v1/nodes/${encodeURIComponent(nodeName)}` },
        { route: { kind: 'kube' }, target: k.target, subject: `node "${nodeName}"`, name: nodeName },
      );
      const addrs = node.status?.addresses ?? [];
      const ip =
        addrs.find((a) => a.type === 'ExternalIP')?.address ??
        addrs.find((a) => a.type === 'InternalIP')?.address;
      if (!ip)
        throw new AntctlError('ANTCTL_BAD_RESPONSE', `Node ${nodeName} of the controller has no IP address`);
      const ns = info.podRef?.namespace || 'kube-system';
      const tls: RequestOptions = {};
      await kc?.applyToHTTPSOptions(tls);
      delete tls.agent;
      if (env.insecure) {
        tls.rejectUnauthorized = false;
        delete tls.ca;
      } else {
        const cm = await getJson<{ data?: Record<string, string> }>(
          k,
          { path: `/api/v1/namespaces/${ns}/configmaps/antrea-ca` },
          { route: { kind: 'kube' }, target: k.target, subject: 'configmap "antrea-ca"', name: 'antrea-ca' },
        ).catch((err: unknown) => {
          throw new AntctlError(
            'ANTCTL_SERVER_ERROR',
            `cannot read the controller's CA certificate (ConfigMap ${ns}/antrea-ca), which a secure connection needs: ${(err as Error).message}; run the command again with --insecure to skip verification`,
            { cause: err },
          );
        });
        tls.ca = cm.data?.['ca.crt'];
        tls.servername = `antrea.${ns}.svc`;
        tls.rejectUnauthorized = true;
      }
      const host = ip.includes(':') ? `[${ip}]` : ip;
      return new HttpApiClient({
        baseUrl: env.server || `https://${host}:${info.apiPort ?? CONTROLLER_API_PORT}`,
        tls,
        timeoutMs: env.timeoutMs,
      });
    },
    async agent() {
      const address = env.agentAddress || DEFAULT_AGENT_ADDRESS;
      const baseUrl = /^https?:\/\//.test(address) ? address : `https://${address}`;
      return loopbackClient(env, AGENT_API_PORT, baseUrl, env.agentTokenFile);
    },
  };
}

/** Sends one request and maps every failure to an AntctlError that says what to do. */
export async function send(client: ApiClient, req: ApiRequest, ctx: FailureContext): Promise<ApiResponse> {
  let res: ApiResponse;
  try {
    res = await client.request(req);
  } catch (err) {
    throw networkFailure(err, ctx);
  }
  if (res.status < 200 || res.status >= 300) throw httpFailure(res.status, res.body, ctx);
  return res;
}

export async function getJson<T>(client: ApiClient, req: ApiRequest, ctx: FailureContext): Promise<T> {
  const res = await send(client, req, ctx);
  try {
    return JSON.parse(res.body.toString('utf8')) as T;
  } catch (err) {
    throw new AntctlError(
      'ANTCTL_BAD_RESPONSE',
      `${ctx.target} answered ${ctx.subject} with something that is not JSON: ${res.body.toString('utf8').slice(0, 200)}`,
      { cause: err },
    );
  }
}
