/**
 * Select group ids for service ports. An id is a hash of the owner key, so an agent restart picks
 * the same id for the same service port and rewrites the group in place (add-or-modify) instead of
 * leaving traffic a moment without a group; a collision probes the next free id.
 */

/** Highest group id OpenFlow leaves to controllers (OFPG_MAX = 0xffffff00); the contract caps at 0xfffffff0. */
export const MAX_SERVICE_GROUP_ID = 0xfffffff0;

/** FNV-1a, 32 bits: cheap, stable across processes and versions. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The id a key gets when nothing collides with it: 1..MAX_SERVICE_GROUP_ID. */
export const preferredGroupId = (key: string): number => (fnv1a32(key) % MAX_SERVICE_GROUP_ID) + 1;

export class GroupIdAllocator {
  private readonly byKey = new Map<string, number>();
  private readonly taken = new Set<number>();

  /** @param prefer the id a key asks for (tests force collisions with it). */
  constructor(private readonly prefer: (key: string) => number = preferredGroupId) {}

  /** The key's id, allocated on first use. */
  idFor(key: string): number {
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    let id = this.prefer(key);
    while (this.taken.has(id)) id = id === MAX_SERVICE_GROUP_ID ? 1 : id + 1;
    this.byKey.set(key, id);
    this.taken.add(id);
    return id;
  }

  release(key: string): void {
    const id = this.byKey.get(key);
    if (id === undefined) return;
    this.byKey.delete(key);
    this.taken.delete(id);
  }

  get size(): number {
    return this.byKey.size;
  }
}
