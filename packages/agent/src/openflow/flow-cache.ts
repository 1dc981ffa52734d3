import {
  type Flow,
  type FlowMod,
  formatActions,
  formatGroup,
  formatMatch,
  type GroupMod,
} from '@antrea-ts/openflow';
import type { Logger } from 'pino';
import { commitAllOrEach, GroupCommit } from '../util/group-commit.js';
import type { FlowSwitch, GroupChange } from './of-connection.js';

/** A group an owner wants on the switch (a GroupMod without its command). */
export type OwnedGroup = Omit<GroupMod, 'command'>;

/** An owner's wanted flows and groups; undefined flows remove the owner with its groups. */
export type OwnerChange = readonly [
  owner: string,
  flows: readonly Flow[] | undefined,
  groups?: readonly OwnedGroup[],
];
type Changes = ReadonlyArray<OwnerChange>;

/** The kinds of OpenFlow entry operations Antrea's metrics count (an ADD replacing a flow is a modify). */
export type FlowOp = 'add' | 'modify' | 'delete';

/**
 * Told of every bundle the cache sends: which kinds of operation it carried, how long the switch
 * took to accept or refuse it, and whether it did (the agent's antrea_agent_ovs_flow_ops_* metrics).
 */
export interface FlowOpsObserver {
  bundleSent(ops: ReadonlySet<FlowOp>, ms: number, ok: boolean): void;
}

const ADD_ONLY: ReadonlySet<FlowOp> = new Set(['add']);
const DELETE_ONLY: ReadonlySet<FlowOp> = new Set(['delete']);

/** Group ids are the switch's identity; group ids are unique across owners (the callers' job). */
const sameGroup = (a: OwnedGroup, b: OwnedGroup): boolean => formatGroup(a) === formatGroup(b);

const addOrModify = (g: OwnedGroup): GroupChange => ({ kind: 'group', command: 'ADD_OR_MOD', ...g });
const deleteGroup = (groupId: number): GroupChange => ({
  kind: 'group',
  command: 'DELETE',
  type: 'all',
  groupId,
  buckets: [],
});

/** OpenFlow identifies a flow by table, priority and match; a second ADD replaces the first. */
export function flowIdentity(flow: Flow): string {
  return `${flow.table ?? 0}|${formatMatch(flow.match, flow.priority ?? 0x8000)}`;
}

const sameFlow = (a: Flow, b: Flow): boolean =>
  a.cookie === b.cookie && formatActions(a.actions) === formatActions(b.actions);

/**
 * The flows the agent wants on br-int, grouped by owner key ("pod/<container>", "node/<name>",
 * "pipeline"). Each change of an owner goes to the switch as one atomic bundle holding only the
 * difference, and the whole cache can be replayed after ovs-vswitchd restarts (Antrea's
 * replayFlows). The cache is updated only after the switch accepted the bundle.
 */
export class FlowCache {
  private readonly log: Logger;
  private readonly owners = new Map<string, Map<string, Flow>>();
  private readonly groups = new Map<string, Map<number, OwnedGroup>>();
  /** Serializes bundles so a replay never interleaves with an owner's update. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly group = new GroupCommit<Changes>((batch) =>
    commitAllOrEach(
      batch,
      (all) => this.serialize(() => this.apply(all.flat())),
      (changes) => this.serialize(() => this.apply(changes)),
    ),
  );

  constructor(
    private readonly sw: FlowSwitch,
    logger: Logger,
    private readonly observer?: FlowOpsObserver,
  ) {
    this.log = logger.child({ component: 'flow-cache' });
  }

  /** Makes `owner`'s flows and groups exactly these (adds, modifies, deletes what changed). */
  replace(owner: string, flows: readonly Flow[], groups?: readonly OwnedGroup[]): Promise<void> {
    return this.replaceMany([[owner, flows, groups]]);
  }

  /**
   * Several owners in one bundle; `undefined` removes the owner. Calls made while a bundle is in
   * flight are merged into the next one (group commit), so a burst of Pod ADDs costs a few bundles,
   * not one round trip each; every caller still learns whether its own change was applied.
   */
  replaceMany(changes: Changes): Promise<void> {
    return this.group.submit(changes);
  }

  private async apply(changes: Changes): Promise<void> {
    const mods: FlowMod[] = [];
    const ops = new Set<FlowOp>();
    const groupSets: GroupChange[] = [];
    const groupDeletes = new Set<number>();
    const next = new Map<string, Map<string, Flow> | undefined>();
    const nextGroups = new Map<string, Map<number, OwnedGroup>>();
    for (const [owner, flows, groups] of changes) {
      // Later changes of the same owner in one batch build on the earlier ones.
      const current = next.has(owner)
        ? (next.get(owner) ?? new Map<string, Flow>())
        : (this.owners.get(owner) ?? new Map<string, Flow>());
      const wanted = flows ? new Map(flows.map((f) => [flowIdentity(f), f])) : new Map<string, Flow>();
      for (const [id, f] of current) {
        if (!wanted.has(id)) mods.push(deleteStrict(f));
      }
      for (const [id, f] of wanted) {
        const old = current.get(id);
        if (!old || !sameFlow(old, f)) {
          mods.push({ ...f, command: 'ADD' });
          ops.add(old ? 'modify' : 'add');
        }
      }
      next.set(owner, flows ? wanted : undefined);

      const currentGroups = nextGroups.get(owner) ?? this.groups.get(owner) ?? new Map<number, OwnedGroup>();
      const wantedGroups = new Map((flows ? (groups ?? []) : []).map((g) => [g.groupId, g]));
      for (const id of currentGroups.keys()) if (!wantedGroups.has(id)) groupDeletes.add(id);
      for (const [id, g] of wantedGroups) {
        const old = currentGroups.get(id);
        if (!old || !sameGroup(old, g)) {
          groupSets.push(addOrModify(g));
          ops.add(old ? 'modify' : 'add');
        }
      }
      nextGroups.set(owner, wantedGroups);
    }
    // A flow or group id another owner of this batch now holds stays (DELETE_STRICT ignores
    // cookies, so it would remove that owner's flow too: a Service port renamed in place).
    const claimed = new Set<string>();
    for (const wanted of next.values()) for (const id of wanted?.keys() ?? []) claimed.add(id);
    const flowMods = mods.filter((m) => m.command !== 'DELETE_STRICT' || !claimed.has(flowIdentity(m)));
    for (const groups of nextGroups.values()) for (const id of groups.keys()) groupDeletes.delete(id);
    // Groups exist before the flows that use them, and go after the flows that used them.
    const bundle = [...groupSets, ...flowMods, ...[...groupDeletes].map(deleteGroup)];
    if (flowMods.some((m) => m.command === 'DELETE_STRICT') || groupDeletes.size > 0) ops.add('delete');
    if (bundle.length > 0) await this.send(bundle, ops);
    for (const [owner, flows] of next) {
      if (flows) this.owners.set(owner, flows);
      else this.owners.delete(owner);
    }
    for (const [owner, groups] of nextGroups) {
      if (groups.size > 0) this.groups.set(owner, groups);
      else this.groups.delete(owner);
    }
  }

  remove(owner: string): Promise<void> {
    return this.replaceMany([[owner, undefined]]);
  }

  has(owner: string): boolean {
    return this.owners.has(owner);
  }

  owned(owner: string): Flow[] {
    return [...(this.owners.get(owner)?.values() ?? [])];
  }

  ownedGroups(owner: string): OwnedGroup[] {
    return [...(this.groups.get(owner)?.values() ?? [])];
  }

  /** The owners whose key starts with `prefix` (e.g. one Service's ports). */
  ownersWithPrefix(prefix: string): string[] {
    return [...this.owners.keys()].filter((o) => o.startsWith(prefix));
  }

  private allGroups(): OwnedGroup[] {
    return [...this.groups.values()].flatMap((m) => [...m.values()]);
  }

  /**
   * Deletes the groups on the switch that no owner holds: left by an agent that stopped before
   * removing them (a Service deleted while it was away). Returns how many went.
   */
  pruneGroups(): Promise<number> {
    return this.serialize(async () => {
      if (!this.sw.dumpGroups) return 0;
      const wanted = new Set(this.allGroups().map((g) => g.groupId));
      const stale = (await this.sw.dumpGroups()).filter((g) => !wanted.has(g.groupId));
      await this.send(
        stale.map((g) => deleteGroup(g.groupId)),
        DELETE_ONLY,
      );
      if (stale.length > 0) this.log.info({ groups: stale.length }, 'deleted stale groups');
      return stale.length;
    });
  }

  /** Every cached flow, ordered by table then priority (descending), like a dump. */
  all(): Flow[] {
    const flows = [...this.owners.values()].flatMap((m) => [...m.values()]);
    return flows.sort((a, b) => (a.table ?? 0) - (b.table ?? 0) || (b.priority ?? 0) - (a.priority ?? 0));
  }

  /** Cached flows per table id (antrea_agent_ovs_flow_count), without copying or sorting them. */
  countByTable(): Map<number, number> {
    const out = new Map<number, number>();
    for (const m of this.owners.values())
      for (const f of m.values()) out.set(f.table ?? 0, (out.get(f.table ?? 0) ?? 0) + 1);
    return out;
  }

  get size(): number {
    let n = 0;
    for (const m of this.owners.values()) n += m.size;
    return n;
  }

  /**
   * Installs every cached flow again in one bundle: after ovs-vswitchd restarted (it forgets all
   * flows), or after an agent restart to refresh cookies. ADD replaces flows that already exist.
   */
  replay(): Promise<number> {
    return this.serialize(async () => {
      const flows = this.all();
      const groups = this.allGroups();
      await this.send(
        [...groups.map(addOrModify), ...flows.map((f) => ({ ...f, command: 'ADD' as const }))],
        ADD_ONLY,
      );
      this.log.info({ flows: flows.length, groups: groups.length }, 'replayed flows');
      return flows.length;
    });
  }

  /**
   * Deletes flows on the switch that carry `cookie` under `cookieMask` (e.g. an older round) and
   * that the cache does not hold.
   */
  deleteByCookie(cookie: bigint, cookieMask: bigint): Promise<void> {
    return this.serialize(() =>
      this.send([{ command: 'DELETE', cookie, cookieMask, match: [], actions: [] }], DELETE_ONLY),
    );
  }

  /**
   * Sends one bundle and tells the observer, when it carried anything, how the switch took it. The
   * observer only watches: its own failure is logged, never turned into the bundle's outcome.
   */
  private async send(bundle: readonly (FlowMod | GroupChange)[], ops: ReadonlySet<FlowOp>): Promise<void> {
    const observer = this.observer;
    if (!observer || bundle.length === 0) return this.sw.bundle(bundle);
    const started = performance.now();
    let ok = false;
    try {
      await this.sw.bundle(bundle);
      ok = true;
    } finally {
      try {
        observer.bundleSent(ops, performance.now() - started, ok);
      } catch (err) {
        this.log.warn({ err }, 'flow operations observer failed');
      }
    }
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function deleteStrict(f: Flow): FlowMod {
  return {
    command: 'DELETE_STRICT',
    table: f.table ?? 0,
    priority: f.priority ?? 0x8000,
    match: f.match,
    actions: [],
  };
}
