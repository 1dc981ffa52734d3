import { describe, expect, it } from 'vitest';
import { commitAllOrEach, GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('commits a lone item at once and merges items submitted while a commit runs', async () => {
    const groups: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const gc = new GroupCommit<number>(async (items) => {
      groups.push([...items]);
      if (groups.length === 1) await gate;
      return items.map(() => undefined);
    });
    const first = gc.submit(1);
    const rest = [gc.submit(2), gc.submit(3), gc.submit(4)];
    expect(groups).toEqual([[1]]);
    release();
    await Promise.all([first, ...rest]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it('fails only the submitters whose outcome is an error; a thrown commit fails the group', async () => {
    const gc = new GroupCommit<number>(async (items) =>
      items.map((n) => (n % 2 === 0 ? new Error(`even ${n}`) : undefined)),
    );
    const settled = await Promise.allSettled([gc.submit(1), gc.submit(2), gc.submit(3)]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const broken = new GroupCommit<number>(async () => {
      throw new Error('down');
    });
    await expect(broken.submit(1)).rejects.toThrow('down');
  });
});

describe('commitAllOrEach', () => {
  it('commits the group at once when it can, else each item alone', async () => {
    const calls: string[] = [];
    const all = async (items: readonly number[]) => {
      calls.push(`all ${items.join(',')}`);
      if (items.includes(2)) throw new Error('group refused');
    };
    const one = async (n: number) => {
      calls.push(`one ${n}`);
      if (n === 2) throw new Error('bad 2');
    };
    expect(await commitAllOrEach([1, 3], all, one)).toEqual([undefined, undefined]);
    const outcomes = await commitAllOrEach([1, 2, 3], all, one);
    expect(outcomes.map((o) => o?.message)).toEqual([undefined, 'bad 2', undefined]);
    expect(await commitAllOrEach([5], all, one)).toEqual([undefined]);
    expect(calls).toEqual(['all 1,3', 'all 1,2,3', 'one 1', 'one 2', 'one 3', 'one 5']);
  });
});
