import { listAll, type NsxTransport, putWithRevision } from './client.js';
import type { PolicyFeed } from './types.js';

/** Where the cluster's ClusterControlPlane lives (site and enforcement point "default"). */
export const ENFORCEMENT_POINT_PATH = '/infra/sites/default/enforcement-points/default';
export const POLICY_API = '/policy/api/v1';

export function ccpObjectPath(clusterName: string): string {
  return `${ENFORCEMENT_POINT_PATH}/cluster-control-planes/${encodeURIComponent(clusterName)}`;
}

/** One per-policy realization report (simulator shape, after ConsolidatedRealizedStatus). */
export interface RealizationReport {
  intent_path: string;
  intent_revision?: number;
  state: 'SUCCESS' | 'IN_PROGRESS' | 'ERROR';
  errors?: { error_code?: number; error_message: string }[];
  current_nodes_realized?: number;
  desired_nodes_realized?: number;
}

/** What the CCP adapter needs from NSX. */
export interface CcpChannel {
  /**
   * The policies, groups and services spanned to this cluster. With `afterGeneration`, waits (up
   * to `timeoutMs`) until NSX has something newer; returns the current feed either way.
   */
  getFeed(opts?: { afterGeneration?: number; timeoutMs?: number; signal?: AbortSignal }): Promise<PolicyFeed>;
  reportRealization(results: RealizationReport[]): Promise<void>;
}

export type InventoryUpdateType = 'CREATE' | 'UPDATE' | 'DELETE';
export interface InventoryUpdate {
  object_update_type: InventoryUpdateType;
  container_object: Record<string, unknown> & { resource_type: string; external_id: string };
}

export interface RuleStatisticsReport {
  rule_id?: number;
  rule_path?: string;
  packet_count: number;
  byte_count: number;
  session_count: number;
}

export interface TraceflowRequest {
  config: Record<string, unknown> & { id: string };
  phase: string;
}

export interface SupportBundleRequest {
  request_id: string;
  status: string;
  nodes?: string[];
  log_age_limit?: number;
}

/** What the MP adapter needs from NSX. */
export interface MpChannel {
  /** The cluster's ClusterControlPlane (node_id is the cluster UUID used by inventory). */
  getClusterControlPlane(): Promise<{ id: string; node_id: string } & Record<string, unknown>>;
  /** Registers the cluster (PUT = join) with its principal identity certificate. */
  registerCluster(certificatePem: string): Promise<{ id: string; node_id: string }>;
  listInventory(resourceType: string, clusterUuid: string): Promise<Record<string, unknown>[]>;
  sendInventory(clusterUuid: string, updates: InventoryUpdate[]): Promise<void>;
  reportStatus(info: Record<string, unknown>): Promise<void>;
  getHeartbeatIntervalSeconds(): Promise<number>;
  reportStatistics(stats: RuleStatisticsReport[]): Promise<void>;
  listTraceflows(phase?: string): Promise<TraceflowRequest[]>;
  startTraceflow(id: string): Promise<void>;
  reportTraceflow(id: string, result: Record<string, unknown>): Promise<void>;
  listSupportBundleRequests(status?: string): Promise<SupportBundleRequest[]>;
  startSupportBundle(requestId: string): Promise<void>;
  uploadSupportBundle(requestId: string, archive: Buffer): Promise<void>;
  failSupportBundle(requestId: string, message: string): Promise<void>;
}

const INVENTORY_COLLECTIONS: Record<string, string> = {
  ContainerCluster: 'container-clusters',
  ContainerProject: 'container-projects',
  ContainerApplication: 'container-applications',
  ContainerApplicationInstance: 'container-application-instances',
  ContainerClusterNode: 'container-cluster-nodes',
  ContainerNetworkPolicy: 'container-network-policies',
  ContainerIngressPolicy: 'container-ingress-policies',
};

/**
 * Both channels over NSX REST. Public NSX APIs where they exist (cluster-control-planes, status,
 * heartbeat-config, container inventory, fabric reads, pagination); the simulator's /rpc/v1 stand-ins
 * for NSX-RPC where NSX has no public API (policy feed, realization, statistics push, traceflow and
 * support bundle work queues). See README "Departures".
 */
export class NsxRestChannel implements CcpChannel, MpChannel {
  private readonly rpc: string;
  private readonly ccp: string;

  constructor(
    private readonly t: NsxTransport,
    private readonly clusterName: string,
  ) {
    this.rpc = `/rpc/v1/clusters/${encodeURIComponent(clusterName)}`;
    this.ccp = `${POLICY_API}${ccpObjectPath(clusterName)}`;
  }

  getFeed(
    opts: { afterGeneration?: number; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<PolicyFeed> {
    const query: Record<string, number | undefined> = {};
    if (opts.afterGeneration !== undefined) {
      query['after_generation'] = opts.afterGeneration;
      query['timeout_ms'] = opts.timeoutMs ?? 30_000;
    }
    return this.t.request<PolicyFeed>('GET', `${this.rpc}/policy-feed`, undefined, {
      query,
      ...(opts.signal ? { signal: opts.signal } : {}),
      // The long poll itself must not trip the client timeout.
      ...(opts.afterGeneration !== undefined ? { timeoutMs: (opts.timeoutMs ?? 30_000) + 30_000 } : {}),
    });
  }

  async reportRealization(results: RealizationReport[]): Promise<void> {
    if (results.length === 0) return;
    await this.t.request('POST', `${this.rpc}/realization`, { results });
  }

  async getClusterControlPlane(): Promise<{ id: string; node_id: string } & Record<string, unknown>> {
    return this.t.request('GET', this.ccp);
  }

  async registerCluster(certificatePem: string): Promise<{ id: string; node_id: string }> {
    return putWithRevision(this.t, this.ccp, {
      resource_type: 'AntreaClusterControlPlane',
      display_name: this.clusterName,
      certificate: certificatePem,
    });
  }

  listInventory(resourceType: string, clusterUuid: string): Promise<Record<string, unknown>[]> {
    const collection = INVENTORY_COLLECTIONS[resourceType];
    if (!collection) throw new TypeError(`unknown inventory type ${resourceType}`);
    return listAll(this.t, `/api/v1/fabric/${collection}`, { query: { container_cluster_id: clusterUuid } });
  }

  async sendInventory(clusterUuid: string, updates: InventoryUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    await this.t.request(
      'POST',
      `/api/v1/inventory/container/${encodeURIComponent(clusterUuid)}`,
      { container_inventory_objects: updates },
      { query: { action: 'updates' } },
    );
  }

  async reportStatus(info: Record<string, unknown>): Promise<void> {
    await this.t.request('PUT', `${this.ccp}/status`, { resource_type: 'AntreaClusterInfo', ...info });
  }

  async getHeartbeatIntervalSeconds(): Promise<number> {
    const cfg = await this.t.request<{ report_interval?: number }>('GET', `${this.ccp}/heartbeat-config`);
    return cfg?.report_interval ?? 60;
  }

  async reportStatistics(stats: RuleStatisticsReport[]): Promise<void> {
    if (stats.length === 0) return;
    await this.t.request('POST', `${this.rpc}/statistics`, { rule_statistics: stats });
  }

  async listTraceflows(phase?: string): Promise<TraceflowRequest[]> {
    const res = await this.t.request<{ results?: TraceflowRequest[] }>(
      'GET',
      `${this.rpc}/traceflows`,
      undefined,
      { query: { phase } },
    );
    return res?.results ?? [];
  }

  async startTraceflow(id: string): Promise<void> {
    await this.t.request('POST', `${this.rpc}/traceflows/${encodeURIComponent(id)}/start`);
  }

  async reportTraceflow(id: string, result: Record<string, unknown>): Promise<void> {
    await this.t.request('POST', `${this.rpc}/traceflows/${encodeURIComponent(id)}/result`, result);
  }

  async listSupportBundleRequests(status?: string): Promise<SupportBundleRequest[]> {
    const res = await this.t.request<{ results?: SupportBundleRequest[] }>(
      'GET',
      `${this.rpc}/support-bundle-requests`,
      undefined,
      { query: { status } },
    );
    return res?.results ?? [];
  }

  async startSupportBundle(requestId: string): Promise<void> {
    await this.t.request(
      'POST',
      `${this.rpc}/support-bundle-requests/${encodeURIComponent(requestId)}/start`,
    );
  }

  async uploadSupportBundle(requestId: string, archive: Buffer): Promise<void> {
    await this.t.request(
      'PUT',
      `${this.rpc}/support-bundle-requests/${encodeURIComponent(requestId)}/archive`,
      undefined,
      {
        raw: { data: archive, contentType: 'application/octet-stream' },
      },
    );
  }

  async failSupportBundle(requestId: string, message: string): Promise<void> {
    await this.t.request(
      'POST',
      `${this.rpc}/support-bundle-requests/${encodeURIComponent(requestId)}/result`,
      { status: 'FAILED', error_message: message },
    );
  }
}
