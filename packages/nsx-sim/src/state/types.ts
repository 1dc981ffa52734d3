/** Any NSX JSON object (snake_case fields). */
export type NsxObject = Record<string, unknown>;

/** A Policy API object as stored: always carries the common envelope. */
export interface PolicyObject extends NsxObject {
  id: string;
  resource_type: string;
  path: string;
  parent_path: string;
  relative_path: string;
  _revision: number;
}

export interface PrincipalIdentityRecord {
  id: string;
  name: string;
  node_id: string;
  role?: string;
  roles_for_paths?: unknown[];
  is_protected: boolean;
  certificate_id: string;
  certificate_pem: string;
  /** SHA-256 fingerprint as Node prints it (AA:BB:...). */
  fingerprint256: string;
  _create_time: number;
  _revision: number;
}

/** Last health report of one cluster (AntreaClusterInfo as posted) and when it came. */
export interface ClusterHealthRecord {
  info: NsxObject;
  last_heartbeat_time: number;
  heartbeat_count: number;
}

export interface RuleCounters {
  packet_count: number;
  byte_count: number;
  session_count: number;
  hit_count: number;
}

export interface RealizationRecord {
  state: 'SUCCESS' | 'IN_PROGRESS' | 'ERROR';
  intent_revision: number | null;
  errors: { error_code?: number; error_message: string }[];
  current_nodes_realized: number | null;
  desired_nodes_realized: number | null;
  last_update_time: number;
}

export type TraceflowPhase = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

export interface TraceflowRuntime {
  phase: TraceflowPhase;
  reason: string | null;
  observations: NsxObject[];
  /** Raw per-node results as the adapter reported them (optional, kept for tests). */
  results: NsxObject[];
  last_activity: number;
  started_by: string | null;
}

export type BundleStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface SupportBundleClusterPart {
  cluster_id: string;
  nodes: string[];
  status: BundleStatus;
  error_message: string | null;
  archive_size: number;
  /** base64 archive bytes (kept in the state file; the sim caps the size). */
  archive_base64: string | null;
  last_update_time: number;
}

export interface SupportBundleRequest {
  request_id: string;
  status: BundleStatus;
  request_time: number;
  request: NsxObject;
  clusters: SupportBundleClusterPart[];
}

export interface SimState {
  version: 1;
  /** Policy objects keyed by policy path (/infra/...). Embedded children (rules, entries) are stored separately. */
  policy: Record<string, PolicyObject>;
  counters: { rule_id: number };
  principal_identities: Record<string, PrincipalIdentityRecord>;
  /** Keyed by ClusterControlPlane id. */
  cluster_health: Record<string, ClusterHealthRecord>;
  /** Container inventory: resource_type -> external_id -> object. */
  inventory: Record<string, Record<string, NsxObject>>;
  /** ClusterControlPlane id -> rule path -> counters (absolute values from the last report). */
  statistics: Record<string, Record<string, RuleCounters>>;
  /** intent path -> ClusterControlPlane id -> record. */
  realization: Record<string, Record<string, RealizationRecord>>;
  /** Traceflow id -> runtime. */
  traceflows: Record<string, TraceflowRuntime>;
  support_bundles: Record<string, SupportBundleRequest>;
}

export function emptyState(): SimState {
  return {
    version: 1,
    policy: {},
    counters: { rule_id: 1000 },
    principal_identities: {},
    cluster_health: {},
    inventory: {},
    statistics: {},
    realization: {},
    traceflows: {},
    support_bundles: {},
  };
}
