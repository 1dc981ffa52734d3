// controlplane.antrea.io/v1beta2 objects as they travel in JSON (IPs are base64 bytes, as Go's
// []byte marshals them), and the transforms Antrea's pkg/antctl/transform applies before output.
import { formatIP } from '@antrea-ts/apis';
import { AntctlError } from '../errors.js';
import { summarize, type TableRows } from '../output/table.js';
import { sortByField } from './sort.js';

export interface ObjectMetaJson {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
}

export interface NetworkPolicyReferenceJson {
  type: string;
  namespace?: string;
  name: string;
  uid?: string;
}

export interface NetworkPolicyJson {
  metadata: ObjectMetaJson;
  rules?: unknown[];
  appliedToGroups?: string[];
  priority?: number;
  tierPriority?: number;
  sourceRef?: NetworkPolicyReferenceJson;
  [k: string]: unknown;
}

export interface GroupMemberJson {
  pod?: { name: string; namespace: string };
  node?: { name: string };
  externalEntity?: { name: string; namespace: string };
  service?: { name: string; namespace: string };
  /** base64 of 4 or 16 bytes each (see decodeIp for the other shapes accepted). */
  ips?: unknown[];
  ports?: { port: number; name?: string; protocol?: string }[];
}

export interface GroupJson {
  metadata: ObjectMetaJson;
  groupMembers?: GroupMemberJson[];
}

export interface ListJson<T> {
  items?: T[] | null;
}

/** --type values and the source types they select (Antrea's querier.NetworkPolicyTypeMap). */
export const POLICY_TYPE_SHORTHANDS: Readonly<Record<string, string>> = {
  K8SNP: 'K8sNetworkPolicy',
  ACNP: 'AntreaClusterNetworkPolicy',
  ANNP: 'AntreaNetworkPolicy',
  ANP: 'AdminNetworkPolicy',
  BANP: 'BaselineAdminNetworkPolicy',
};
export const POLICY_TYPE_FLAG_VALUES = ['K8sNP', 'ACNP', 'ANNP', 'BANP', 'ANP'] as const;

export function policyTypeFromFlag(flag: string): string {
  const t = POLICY_TYPE_SHORTHANDS[flag.toUpperCase()];
  if (t === undefined || !(POLICY_TYPE_FLAG_VALUES as readonly string[]).includes(flag)) {
    throw new AntctlError(
      'ANTCTL_USAGE',
      `unsupported value ${flag} for flag type: want one of ${POLICY_TYPE_FLAG_VALUES.join(', ')}`,
    );
  }
  return t;
}

/** NetworkPolicyReference.ToString in Antrea's controlplane helper. */
export function sourceRefString(r: NetworkPolicyReferenceJson | undefined): string {
  if (r === undefined) return '';
  if (r.type === 'AntreaClusterNetworkPolicy' || r.type === 'K8sClusterNetworkPolicy')
    return `${r.type}:${r.name}`;
  return `${r.type}:${r.namespace ?? ''}/${r.name}`;
}

/**
 * One member IP as it arrives: base64 of 4 or 16 bytes (Go's []byte). Byte arrays and the
 * {"0":10,"1":10,...} shape that JSON.stringify gives a Uint8Array are accepted too, so antctl
 * reads a server that serializes raw typed arrays.
 */
export function decodeIp(raw: unknown): string {
  let bytes: Uint8Array | undefined;
  if (typeof raw === 'string') bytes = new Uint8Array(Buffer.from(raw, 'base64'));
  else if (Array.isArray(raw)) bytes = Uint8Array.from(raw as number[]);
  else if (raw !== null && typeof raw === 'object') {
    const values = Object.keys(raw)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => (raw as Record<string, number>)[k] as number);
    bytes = Uint8Array.from(values);
  }
  if (bytes === undefined || (bytes.length !== 4 && bytes.length !== 16)) return String(raw);
  // formatIP prints as Go's net.IP.String does (dotted IPv4-mapped, RFC 5952 IPv6).
  return formatIP(bytes);
}

/** Antrea's common.GroupMember: the member with its IPs joined as text. */
export interface GroupMemberOut {
  pod?: { name: string; namespace: string };
  node?: { name: string };
  ip?: string;
  ports?: { port: number; name?: string; protocol?: string }[];
}

export function groupMemberOut(m: GroupMemberJson): GroupMemberOut {
  const out: GroupMemberOut = {};
  if (m.pod) out.pod = m.pod;
  if (m.node) out.node = m.node;
  const ip = (m.ips ?? []).map(decodeIp).join(', ');
  if (ip !== '') out.ip = ip;
  if (m.ports && m.ports.length > 0) out.ports = m.ports;
  return out;
}

export interface AddressGroupOut {
  name: string;
  pods?: GroupMemberOut[];
  nodes?: GroupMemberOut[];
}

export interface AppliedToGroupOut {
  name: string;
  pods?: GroupMemberOut[];
}

export function addressGroupOut(g: GroupJson): AddressGroupOut {
  const pods: GroupMemberOut[] = [];
  const nodes: GroupMemberOut[] = [];
  for (const m of g.groupMembers ?? []) (m.node ? nodes : pods).push(groupMemberOut(m));
  const out: AddressGroupOut = { name: g.metadata.name };
  if (pods.length > 0) out.pods = pods;
  if (nodes.length > 0) out.nodes = nodes;
  return out;
}

export function appliedToGroupOut(g: GroupJson): AppliedToGroupOut {
  const pods = (g.groupMembers ?? []).map(groupMemberOut);
  return pods.length > 0 ? { name: g.metadata.name, pods } : { name: g.metadata.name };
}

/** Between the application tier (250) and the baseline tier (253), as Antrea sorts K8s policies. */
const K8S_NP_EFFECTIVE_TIER_PRIORITY = Math.trunc((250 + 253) / 2);

export const SORT_BY_EFFECTIVE_PRIORITY = 'effectivePriority';

export function sortPolicies(
  items: readonly NetworkPolicyJson[],
  sortBy: string | undefined,
): NetworkPolicyJson[] {
  const field = sortBy === undefined || sortBy === '' ? '.sourceRef.name' : sortBy;
  if (field !== SORT_BY_EFFECTIVE_PRIORITY) return sortByField(items, field);
  return [...items].sort((a, b) => {
    const ta = a.tierPriority ?? K8S_NP_EFFECTIVE_TIER_PRIORITY;
    const tb = b.tierPriority ?? K8S_NP_EFFECTIVE_TIER_PRIORITY;
    if (ta !== tb) return ta - tb;
    if (a.priority !== undefined && b.priority !== undefined && a.priority !== b.priority) {
      return a.priority - b.priority;
    }
    return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
  });
}

export function sortGroups<T extends { metadata: ObjectMetaJson }>(
  items: readonly T[],
  sortBy: string | undefined,
): T[] {
  return sortByField(items, sortBy === undefined || sortBy === '' ? '.metadata.name' : sortBy);
}

/** Client-side filters for controller mode, where the API serves every policy. */
export interface PolicyFilter {
  /** Source policy name (-S). */
  readonly source?: string;
  /** Source policy Namespace (-n). */
  readonly namespace?: string;
  /** Full source type (from -T). */
  readonly type?: string;
}

export function filterPolicies(items: readonly NetworkPolicyJson[], f: PolicyFilter): NetworkPolicyJson[] {
  return items.filter(
    (p) =>
      (f.source === undefined || p.sourceRef?.name === f.source) &&
      (f.namespace === undefined || p.sourceRef?.namespace === f.namespace) &&
      (f.type === undefined || p.sourceRef?.type === f.type),
  );
}

function num(n: number | undefined): string {
  return n === undefined || n === null ? '' : String(n);
}

export function networkPolicyTable(list: readonly NetworkPolicyJson[]): TableRows {
  return {
    header: ['NAME', 'APPLIED-TO', 'RULES', 'SOURCE', 'TIER-PRIORITY', 'PRIORITY'],
    rows: list.map((p) => [
      p.metadata.name,
      summarize(p.appliedToGroups ?? []),
      String((p.rules ?? []).length),
      sourceRefString(p.sourceRef),
      num(p.tierPriority),
      num(p.priority),
    ]),
    sortRows: false,
  };
}

export function addressGroupTable(list: readonly AddressGroupOut[]): TableRows {
  return {
    header: ['NAME', 'POD-IPS', 'NODE-IPS'],
    rows: list.map((g) => [
      g.name,
      summarize((g.pods ?? []).map((m) => m.ip ?? '')),
      summarize((g.nodes ?? []).map((m) => m.ip ?? '')),
    ]),
    sortRows: true,
  };
}

export function appliedToGroupTable(list: readonly AppliedToGroupOut[]): TableRows {
  return {
    header: ['NAME', 'PODS'],
    rows: list.map((g) => [
      g.name,
      summarize((g.pods ?? []).map((m) => `${m.pod?.namespace ?? ''}/${m.pod?.name ?? ''}`)),
    ]),
    sortRows: true,
  };
}
