/**
 * Dataplane tags of running Traceflows (Antrea pkg/controller/traceflow): a tag is written into the
 * DSCP bits of the traced packet, so it must be a DSCP value nobody else uses. Antrea takes the
 * sixteen RFC 2474 pool-3 values (xxxx11, "experimental or local use") minus 0b000011 and
 * 0b111111: 7, 11, ..., 59, i.e. at most 14 Traceflows run at once.
 */
export const MIN_TAG = 0b000111;
export const MAX_TAG = 0b111011;
export const TAG_STEP = 0b100;

export class TagAllocator {
  private readonly owners = new Map<number, string>();

  /** The tag `name` holds, or a free one for it; undefined when all are taken. */
  allocate(name: string): number | undefined {
    for (const [tag, owner] of this.owners) if (owner === name) return tag;
    for (let tag = MIN_TAG; tag <= MAX_TAG; tag += TAG_STEP) {
      if (!this.owners.has(tag)) {
        this.owners.set(tag, name);
        return tag;
      }
    }
    return undefined;
  }

  /** Records a tag found in a Running Traceflow's status (controller restart); false if invalid or taken. */
  occupy(name: string, tag: number): boolean {
    if (!isTag(tag)) return false;
    const owner = this.owners.get(tag);
    if (owner !== undefined) return owner === name;
    this.owners.set(tag, name);
    return true;
  }

  /** Frees `name`'s tag (no-op when it holds none). */
  release(name: string): void {
    for (const [tag, owner] of this.owners) if (owner === name) this.owners.delete(tag);
  }

  get size(): number {
    return this.owners.size;
  }
}

export function isTag(tag: number): boolean {
  return Number.isInteger(tag) && tag >= MIN_TAG && tag <= MAX_TAG && (tag - MIN_TAG) % TAG_STEP === 0;
}
