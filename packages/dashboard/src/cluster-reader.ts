import type { AntreaAgentInfo, AntreaNetworkPolicy, ClusterNetworkPolicy, Traceflow } from '@antrea-ts/apis';
import { ApiException, CustomObjectsApi, type KubeConfig, NetworkingV1Api } from '@kubernetes/client-node';
import { DashboardError, ErrorCodes } from './errors.js';
import type { K8sNetworkPolicyLike } from './policy-rows.js';

/** What the dashboard reads from and writes to kube-apiserver (a fake in unit tests). */
export interface ClusterReader {
  agentInfos(): Promise<AntreaAgentInfo[]>;
  clusterNetworkPolicies(): Promise<ClusterNetworkPolicy[]>;
  antreaNetworkPolicies(): Promise<AntreaNetworkPolicy[]>;
  k8sNetworkPolicies(): Promise<K8sNetworkPolicyLike[]>;
  traceflows(): Promise<Traceflow[]>;
  traceflow(name: string): Promise<Traceflow | undefined>;
  /** Returns the created object (its generated name). */
  createTraceflow(tf: Traceflow): Promise<Traceflow>;
}

const CRD = { group: 'crd.antrea.io', version: 'v1beta1' } as const;

/** ClusterReader over client-node, with the controller's own kubeconfig credentials. */
export class KubeClusterReader implements ClusterReader {
  readonly #custom: CustomObjectsApi;
  readonly #networking: NetworkingV1Api;

  constructor(kc: KubeConfig) {
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#networking = kc.makeApiClient(NetworkingV1Api);
  }

  async #list<T>(plural: string): Promise<T[]> {
    try {
      const list = (await this.#custom.listClusterCustomObject({ ...CRD, plural })) as { items?: T[] };
      return list.items ?? [];
    } catch (err) {
      // A CRD that is not installed (AntreaPolicy off, an older manifest) lists as empty.
      if (err instanceof ApiException && err.code === 404) return [];
      throw kubeError(plural, err);
    }
  }

  agentInfos(): Promise<AntreaAgentInfo[]> {
    return this.#list('antreaagentinfos');
  }

  clusterNetworkPolicies(): Promise<ClusterNetworkPolicy[]> {
    return this.#list('clusternetworkpolicies');
  }

  antreaNetworkPolicies(): Promise<AntreaNetworkPolicy[]> {
    return this.#list('networkpolicies');
  }

  async k8sNetworkPolicies(): Promise<K8sNetworkPolicyLike[]> {
    const list = await call('networkpolicies.networking.k8s.io', () =>
      this.#networking.listNetworkPolicyForAllNamespaces(),
    );
    return list.items;
  }

  traceflows(): Promise<Traceflow[]> {
    return this.#list('traceflows');
  }

  async traceflow(name: string): Promise<Traceflow | undefined> {
    try {
      return (await this.#custom.getClusterCustomObject({ ...CRD, plural: 'traceflows', name })) as Traceflow;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw kubeError('traceflows', err);
    }
  }

  async createTraceflow(tf: Traceflow): Promise<Traceflow> {
    return (await call('traceflows', () =>
      this.#custom.createClusterCustomObject({ ...CRD, plural: 'traceflows', body: tf }),
    )) as Traceflow;
  }
}

function kubeError(resource: string, err: unknown): DashboardError {
  // kube-apiserver's Status message says what is wrong (forbidden, invalid field...).
  const body = err instanceof ApiException ? (err.body as { message?: string } | string) : undefined;
  const detail =
    typeof body === 'string' ? safeMessage(body) : (body?.message ?? (err as Error).message ?? String(err));
  return new DashboardError(ErrorCodes.KUBE_REQUEST_FAILED, `${resource}: ${detail}`, { cause: err });
}

function safeMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    return body;
  }
}

async function call<T>(resource: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw kubeError(resource, err);
  }
}
