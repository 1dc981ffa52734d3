import { EventEmitter } from 'node:events';
import type { BundleEntry, DumpFlowsFilter, OpenFlowBridgeClient } from '../bridge.js';
import type { BundleFlags } from '../codec/bundle.js';
import type { Flow } from '../codec/flow-mod.js';
import type { GroupMod } from '../codec/group-mod.js';
import type { MeterMod } from '../codec/meter-mod.js';
import type { FlowStats } from '../codec/multipart.js';
import type { PacketIn2, PacketOut } from '../codec/packet.js';
import { OfBundleError, OfErrorReply } from '../errors.js';
import { formatFlow, formatMatch } from '../format/flow-format.js';

/**
 * In-memory OpenFlowBridgeClient for unit tests of code that programs the switch (the agent's
 * pipeline features). Keeps a flow table with OpenFlow's ADD / MODIFY_STRICT / DELETE(_STRICT)
 * semantics keyed by (table, priority, match), applies bundles atomically, and records groups,
 * meters and packet-outs. `reject` lets a test make the "switch" refuse chosen messages.
 */
export class FakeOpenFlowBridge extends EventEmitter implements OpenFlowBridgeClient {
  private readonly flows = new Map<string, FlowStats>();
  readonly groups = new Map<number, Omit<GroupMod, 'command'>>();
  readonly meters = new Map<number, Omit<MeterMod, 'command'>>();
  readonly packetOuts: PacketOut[] = [];
  /** Number of bundles committed successfully. */
  bundles = 0;
  /** Return an OpenFlow error name to make the fake refuse a bundle entry. */
  reject: (entry: BundleEntry, index: number) => string | undefined = () => undefined;

  private static key(f: Flow): string {
    return `${f.table ?? 0}|${formatMatch(f.match, f.priority ?? 0x8000)}`;
  }

  private apply(table: Map<string, FlowStats>, e: BundleEntry): void {
    if (e.kind === 'group') {
      if (e.command === 'DELETE') this.groups.delete(e.groupId);
      else this.groups.set(e.groupId, { type: e.type, groupId: e.groupId, buckets: e.buckets });
      return;
    }
    const k = FakeOpenFlowBridge.key(e);
    const cookieOk = (f: FlowStats): boolean =>
      e.cookieMask === undefined ||
      e.cookieMask === 0n ||
      ((f.cookie ?? 0n) & e.cookieMask) === ((e.cookie ?? 0n) & e.cookieMask);
    switch (e.command) {
      case 'ADD':
        table.set(k, { ...flowOf(e), packetCount: 0n, byteCount: 0n, durationSec: 0, durationNsec: 0 });
        return;
      case 'MODIFY_STRICT': {
        const cur = table.get(k);
        if (cur && cookieOk(cur)) table.set(k, { ...cur, actions: e.actions });
        return;
      }
      case 'MODIFY':
        for (const [key, f] of table)
          if ((e.table === undefined || f.table === e.table) && cookieOk(f))
            table.set(key, { ...f, actions: e.actions });
        return;
      case 'DELETE_STRICT': {
        const cur = table.get(k);
        if (cur && cookieOk(cur)) table.delete(k);
        return;
      }
      case 'DELETE':
        // Only table/cookie filters are modelled for non-strict deletes.
        for (const [key, f] of table)
          if ((e.table === undefined || f.table === e.table) && cookieOk(f)) table.delete(key);
        return;
    }
  }

  async commitBundle(entries: readonly BundleEntry[], _flags?: BundleFlags): Promise<void> {
    const errors: OfErrorReply[] = [];
    entries.forEach((e, i) => {
      const name = this.reject(e, i);
      if (name) errors.push(new OfErrorReply(-1, -1, i, name, i));
    });
    if (errors.length)
      throw new OfBundleError(
        `bundle rejected: ${errors.map((e) => `message #${e.messageIndex}: ${e.errName}`).join('; ')}`,
        errors,
      );
    const next = new Map(this.flows);
    for (const e of entries) this.apply(next, e);
    this.flows.clear();
    for (const [k, v] of next) this.flows.set(k, v);
    this.bundles++;
  }

  addFlows(flows: readonly Flow[]): Promise<void> {
    return this.commitBundle(flows.map((f) => ({ kind: 'flow', command: 'ADD', ...f })));
  }

  modifyFlows(flows: readonly Flow[]): Promise<void> {
    return this.commitBundle(flows.map((f) => ({ kind: 'flow', command: 'MODIFY_STRICT', ...f })));
  }

  deleteFlows(flows: readonly Flow[]): Promise<void> {
    return this.commitBundle(flows.map((f) => ({ kind: 'flow', command: 'DELETE_STRICT', ...f })));
  }

  deleteFlowsByCookie(cookie: bigint, cookieMask: bigint, table?: number): Promise<void> {
    return this.commitBundle([
      {
        kind: 'flow',
        command: 'DELETE',
        cookie,
        cookieMask,
        match: [],
        actions: [],
        ...(table === undefined ? {} : { table }),
      },
    ]);
  }

  async dumpFlows(filter: DumpFlowsFilter = {}): Promise<FlowStats[]> {
    return [...this.flows.values()].filter(
      (f) =>
        (filter.table === undefined || filter.table === 255 || (f.table ?? 0) === filter.table) &&
        (!filter.cookieMask ||
          ((f.cookie ?? 0n) & filter.cookieMask) === ((filter.cookie ?? 0n) & filter.cookieMask)),
    );
  }

  /** Current flows in `ovs-ofctl dump-flows --no-stats` syntax, sorted: handy for assertions. */
  dumpText(table?: number): string[] {
    return [...this.flows.values()]
      .filter((f) => table === undefined || (f.table ?? 0) === table)
      .map((f) => formatFlow(f))
      .sort();
  }

  async installGroup(group: Omit<GroupMod, 'command'>): Promise<void> {
    this.groups.set(group.groupId, group);
  }

  async deleteGroup(groupId: number): Promise<void> {
    this.groups.delete(groupId);
  }

  async installMeter(meter: Omit<MeterMod, 'command'>): Promise<void> {
    this.meters.set(meter.meterId, meter);
  }

  async deleteMeter(meterId: number): Promise<void> {
    this.meters.delete(meterId);
  }

  async sendPacketOut(po: PacketOut): Promise<void> {
    this.packetOuts.push(po);
  }

  /** Delivers a packet-in to listeners as the real bridge would. */
  injectPacketIn(pi: PacketIn2): void {
    this.emit('packetIn', pi);
  }

  /** Behaves like an ovs-vswitchd restart: state is lost, then `reconnected` fires for replay. */
  simulateRestart(): void {
    this.flows.clear();
    this.groups.clear();
    this.meters.clear();
    this.emit('disconnected');
    this.emit('reconnected');
  }

  override on(event: 'packetIn', listener: (pi: PacketIn2) => void): this;
  override on(event: 'reconnected' | 'disconnected', listener: () => void): this;
  override on(event: string, listener: (...args: never[]) => void): this {
    return super.on(event, listener as (...args: unknown[]) => void);
  }
}

function flowOf(f: Flow): Flow {
  const out: Flow = { match: f.match, actions: f.actions };
  out.table = f.table ?? 0;
  out.priority = f.priority ?? 0x8000;
  out.cookie = f.cookie ?? 0n;
  if (f.idleTimeout) out.idleTimeout = f.idleTimeout;
  if (f.hardTimeout) out.hardTimeout = f.hardTimeout;
  if (f.flags) out.flags = f.flags;
  if (f.importance) out.importance = f.importance;
  return out;
}
