/** The outcome of one item of a committed group: undefined when it succeeded. */
export type ItemOutcome = Error | undefined;

/**
 * Group commit: items submitted while a commit is running go together in the next one. A burst of
 * concurrent Pod ADDs then costs one process (or transaction) per group instead of one per Pod,
 * while a lone request is committed at once. `commit` reports an outcome per item, so one bad item
 * fails only its own submitter.
 */
export class GroupCommit<T> {
  private queue: Array<{ item: T; resolve: () => void; reject: (err: unknown) => void }> = [];
  private committing = false;

  constructor(private readonly commit: (items: readonly T[]) => Promise<readonly ItemOutcome[]>) {}

  submit(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.committing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.committing = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0);
        let outcomes: readonly ItemOutcome[];
        try {
          outcomes = await this.commit(group.map((g) => g.item));
        } catch (err) {
          for (const g of group) g.reject(err);
          continue;
        }
        group.forEach((g, i) => {
          const err = outcomes[i];
          if (err) g.reject(err);
          else g.resolve();
        });
      }
    } finally {
      this.committing = false;
    }
  }
}

/**
 * The usual `commit` for a GroupCommit: `all` commits the whole group at once; when that fails,
 * each item is committed again on its own with `one`, so only a faulty item's submitter fails. A
 * group of one goes straight to `one`.
 */
export async function commitAllOrEach<T>(
  items: readonly T[],
  all: (items: readonly T[]) => Promise<unknown>,
  one: (item: T) => Promise<unknown>,
): Promise<ItemOutcome[]> {
  const alone = (item: T) =>
    one(item).then(
      () => undefined,
      (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
    );
  if (items.length === 1) return [await alone(items[0] as T)];
  try {
    await all(items);
    return items.map(() => undefined);
  } catch {
    return Promise.all(items.map(alone));
  }
}
