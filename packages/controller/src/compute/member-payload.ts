import type { GroupMember, NamedPort } from '@antrea-ts/apis';
import { parseIPGo } from '@antrea-ts/apis';
import type { EntityKind, PodState } from '../grouping/grouping-index.js';
import { deepEqual } from './equality.js';

/**
 * Per-entity cached wire members (a Pod's or an ExternalEntity's): built once per change of the
 * entity, shared by every group selecting it.
 */
export interface MemberPayload {
  /** AppliedToGroup member (no IPs); undefined when the entity cannot be applied to. */
  atMember: GroupMember | undefined;
  /** AddressGroup member (IPs, named ports); undefined when the entity has no usable address. */
  agMember: GroupMember | undefined;
  nodeName: string;
  ips: readonly string[];
  ports: NamedPort[] | undefined;
}

type Reference = { name: string; namespace: string };

// Members are built as complete literals, sharing one reference object: adding properties later
// would move them out of the object and cost an allocation per member (100k Pods: megabytes).
function appliedToMember(kind: EntityKind, ref: Reference): GroupMember {
  return kind === 'pod' ? { pod: ref } : { externalEntity: ref };
}

function addressMember(kind: EntityKind, ref: Reference, ips: readonly string[]): GroupMember {
  if (ips.length === 0) return appliedToMember(kind, ref);
  const bytes = ips.map((ip) => parseIPGo(ip) ?? new Uint8Array());
  return kind === 'pod' ? { pod: ref, ips: bytes } : { externalEntity: ref, ips: bytes };
}

/**
 * The members of one entity, as Antrea's podToGroupMember / externalEntityToGroupMember build
 * them. Pods are applied to when scheduled, not host-network and not terminated, and are
 * addresses when they also have an IP; ExternalEntities are applied to when they name an
 * ExternalNode and are always addresses (with the IPs of their endpoints, possibly none).
 */
export function memberPayload(
  kind: EntityKind,
  s: PodState,
  ports: NamedPort[] | undefined,
  prev: MemberPayload | undefined,
): MemberPayload {
  const appliable = s.nodeName !== '' && !s.hostNetwork && !s.terminated;
  const addressable = kind === 'externalEntity' || (!s.hostNetwork && !s.terminated && s.ips.length > 0);
  // Reuse the previous member objects when nothing they carry changed, so that groups compare
  // equal by identity and produce no event: the AppliedToGroup member carries no IPs (an IP
  // change keeps it), the AddressGroup member no Node (a Node change keeps it).
  const samePorts = prev !== undefined && deepEqual(prev.ports, ports);
  const sameIPs =
    prev !== undefined && prev.ips.length === s.ips.length && prev.ips.every((ip, i) => ip === s.ips[i]);
  const keepAT = samePorts && (prev.atMember !== undefined) === appliable;
  const keepAG = samePorts && sameIPs && (prev.agMember !== undefined) === addressable;
  if (keepAT && keepAG && prev.nodeName === s.nodeName) return prev;
  const ref = { name: s.name, namespace: s.namespace };
  let atMember: GroupMember | undefined;
  if (keepAT) atMember = prev.atMember;
  else if (appliable) {
    atMember = appliedToMember(kind, ref);
    if (ports) atMember.ports = ports;
  }
  let agMember: GroupMember | undefined;
  if (keepAG) agMember = prev.agMember;
  else if (addressable) {
    agMember = addressMember(kind, ref, s.ips);
    if (ports) agMember.ports = ports;
  }
  return { atMember, agMember, nodeName: s.nodeName, ips: s.ips, ports: samePorts ? prev.ports : ports };
}
