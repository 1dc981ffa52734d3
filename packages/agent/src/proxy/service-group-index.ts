/**
 * Which select groups each Service's ports have on this Node, as the proxier last wrote them
 * (Antrea's GroupCounter.GetAllGroupIDs). NetworkPolicy egress rules with `toServices` peers
 * match a packet's ServiceGroupID (reg7) against these ids, so they must follow every change:
 * a Service created or deleted, a port added, removed or renamed.
 */

/** The read side, as the policy controller sees it. */
export interface ServiceGroupSource {
  /** The group ids of the Service `<namespace>/<name>` (every port), sorted; empty when it has none. */
  groupIds(svcKey: string): readonly number[];
  /** Calls `listener` with the Services whose ids changed, after the switch has their groups. */
  onChange(listener: (svcKeys: readonly string[]) => void): () => void;
}

const sameIds = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((id, i) => id === b[i]);

export class ServiceGroupIndex implements ServiceGroupSource {
  private readonly byService = new Map<string, readonly number[]>();
  private readonly listeners = new Set<(svcKeys: readonly string[]) => void>();

  groupIds(svcKey: string): readonly number[] {
    return this.byService.get(svcKey) ?? [];
  }

  onChange(listener: (svcKeys: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Records what one sync wrote (Service key -> the group ids of its ports; none when it went)
   * and tells the listeners once about the Services whose set of ids differs.
   */
  update(written: Iterable<readonly [string, readonly number[]]>): void {
    const changed: string[] = [];
    for (const [svcKey, ids] of written) {
      const sorted = [...new Set(ids)].sort((a, b) => a - b);
      if (sameIds(sorted, this.groupIds(svcKey))) continue;
      if (sorted.length > 0) this.byService.set(svcKey, sorted);
      else this.byService.delete(svcKey);
      changed.push(svcKey);
    }
    if (changed.length === 0) return;
    for (const l of this.listeners) l(changed);
  }
}
