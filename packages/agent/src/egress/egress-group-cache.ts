import { formatIP, type GroupMember } from '@antrea-ts/apis';
import type { ControllerWatchSink } from '../networkpolicy/controller-watch.js';

export const EGRESS_GROUP_RESOURCE = 'egressgroups';
export type EgressGroupResource = typeof EGRESS_GROUP_RESOURCE;

interface WireGroup {
  metadata?: { name?: string };
  groupMembers?: GroupMember[];
  addedGroupMembers?: GroupMember[];
  removedGroupMembers?: GroupMember[];
}

const memberKey = (m: GroupMember) => `${m.pod?.namespace ?? ''}/${m.pod?.name ?? ''}`;
const ipv4Of = (m: GroupMember) => (m.ips ?? []).map((ip) => formatIP(ip)).filter((ip) => !ip.includes(':'));

/**
 * This Node's members of every EgressGroup, from the controller's egressgroups watch (full groups
 * at start and re-connect, patches after): group name -> Pod -> its IPv4 addresses.
 */
export class EgressGroupCache implements ControllerWatchSink<EgressGroupResource> {
  readonly #groups = new Map<string, Map<string, string[]>>();
  #synced = false;

  constructor(private readonly changed: () => void) {}

  get synced(): boolean {
    return this.#synced;
  }

  /** IPv4 addresses of the group's Pods on this Node. */
  podIps(group: string): string[] {
    return [...(this.#groups.get(group)?.values() ?? [])].flat().sort();
  }

  replace(_resource: EgressGroupResource, objects: readonly unknown[]): void {
    this.#groups.clear();
    for (const o of objects as WireGroup[])
      this.#groups.set(o.metadata?.name ?? '', toMembers(o.groupMembers));
    this.#synced = true;
    this.changed();
  }

  apply(
    _r: EgressGroupResource,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    name: string,
    object: unknown,
  ): void {
    const o = object as WireGroup;
    if (type === 'DELETED') this.#groups.delete(name);
    else if (type === 'ADDED') this.#groups.set(name, toMembers(o.groupMembers));
    else {
      const members = this.#groups.get(name) ?? new Map<string, string[]>();
      for (const m of o.removedGroupMembers ?? []) members.delete(memberKey(m));
      for (const m of o.addedGroupMembers ?? []) members.set(memberKey(m), ipv4Of(m));
      this.#groups.set(name, members);
    }
    this.changed();
  }

  lost(): void {
    // What is installed stays until the watch returns with the whole state.
  }
}

function toMembers(list: readonly GroupMember[] | undefined): Map<string, string[]> {
  return new Map((list ?? []).map((m) => [memberKey(m), ipv4Of(m)]));
}
