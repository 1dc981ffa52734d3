import { type ClientHttp2Session, constants as h2 } from 'node:http2';
import {
  CONTENT_TYPE_PROTOBUF,
  decodeControlplaneWatchEvent,
  type GroupMember,
  groupMemberKey,
  type NetworkPolicy,
  WatchFrameDecoder,
} from '@antrea-ts/apis';
import { appliedToGroupMembers, toWireNetworkPolicy } from '../store/convert.js';
import type { Store } from '../store/ram-store.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';

export const AGENT_RESOURCES = ['networkpolicies', 'appliedtogroups', 'addressgroups'] as const;
export type AgentResource = (typeof AGENT_RESOURCES)[number];

/** What a simulated agent holds: policies by name, group members by group name and member key. */
export interface AgentState {
  networkpolicies: Map<string, NetworkPolicy>;
  appliedtogroups: Map<string, Map<string, GroupMember>>;
  addressgroups: Map<string, Map<string, GroupMember>>;
}

export interface SimAgentEvent {
  resource: AgentResource;
  type: string;
  name: string;
  /** Frame bytes on the wire for this event. */
  bytes: number;
}

export interface SimAgentOptions {
  node: string;
  /** The HTTP/2 session to the controller (one per agent, as client-go keeps one connection). */
  session: () => ClientHttp2Session;
  /** Bearer token, asked again on every (re)connect. */
  token: () => string | Promise<string>;
  /** Delay before re-watching after a watch ended. Default 200 ms. */
  retryMs?: number;
  onEvent?(agent: SimAgent, ev: SimAgentEvent): void;
  onSynced?(agent: SimAgent): void;
  onError?(agent: SimAgent, err: unknown): void;
}

const BASE = '/apis/controlplane.antrea.io/v1beta2';

/**
 * A lightweight antrea-agent: the three protobuf watches with fieldSelector=nodeName, Antrea's
 * replace-on-BOOKMARK (ADDED events are buffered and replace the state at the BOOKMARK, so stale
 * objects go), patches applied to groups, and a re-list whenever a watch ends. Used by the
 * integration tests and the fan-out benchmark; not a production client.
 */
export class SimAgent {
  readonly node: string;
  readonly state: AgentState = {
    networkpolicies: new Map(),
    appliedtogroups: new Map(),
    addressgroups: new Map(),
  };
  /** Resources whose initial state (up to the BOOKMARK) arrived on the current watch. */
  readonly synced = new Set<AgentResource>();
  bytesReceived = 0;
  /** HTTP statuses of watch attempts that were refused (e.g. 403). */
  readonly refusals: number[] = [];
  readonly #opts: SimAgentOptions;
  readonly #streams = new Set<{ close(code?: number): void }>();
  #stopped = true;

  constructor(opts: SimAgentOptions) {
    this.node = opts.node;
    this.#opts = opts;
  }

  get fullySynced(): boolean {
    return this.synced.size === AGENT_RESOURCES.length;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    for (const r of AGENT_RESOURCES) void this.#watch(r);
  }

  stop(): void {
    this.#stopped = true;
    for (const s of this.#streams) s.close(h2.NGHTTP2_CANCEL);
    this.#streams.clear();
  }

  async #watch(resource: AgentResource): Promise<void> {
    if (this.#stopped) return;
    let token: string;
    try {
      token = await this.#opts.token();
    } catch (err) {
      this.#opts.onError?.(this, err);
      this.#retry(resource);
      return;
    }
    if (this.#stopped) return;
    let req: ReturnType<ClientHttp2Session['request']>;
    try {
      req = this.#opts.session().request({
        ':path': `${BASE}/${resource}?watch=true&fieldSelector=${encodeURIComponent(`nodeName=${this.node}`)}`,
        accept: `${CONTENT_TYPE_PROTOBUF}, application/json`,
        authorization: `Bearer ${token}`,
      });
    } catch (err) {
      this.#opts.onError?.(this, err);
      this.#retry(resource);
      return;
    }
    this.#streams.add(req);
    const decoder = new WatchFrameDecoder();
    const buffered = new Map<string, unknown>();
    let initial = true;
    let status = 0;
    req.on('response', (headers) => {
      status = Number(headers[':status']);
      if (status !== 200) this.refusals.push(status);
    });
    req.on('data', (chunk: Buffer) => {
      if (status !== 200) return;
      this.bytesReceived += chunk.length;
      let events: ReturnType<WatchFrameDecoder['push']>;
      try {
        events = decoder.push(chunk);
      } catch (err) {
        this.#opts.onError?.(this, err);
        req.close(h2.NGHTTP2_CANCEL);
        return;
      }
      // Frame bytes are attributed per event: 4-byte length + body.
      for (const raw of events) {
        const ev = decodeControlplaneWatchEvent(raw);
        const meta = (ev.object as { metadata?: { name?: string } }).metadata;
        const name = meta?.name ?? '';
        if (ev.type === 'BOOKMARK') {
          if (initial) {
            initial = false;
            this.#replace(resource, buffered);
            buffered.clear();
            this.synced.add(resource);
            if (this.fullySynced) this.#opts.onSynced?.(this);
          }
        } else if (initial && ev.type === 'ADDED') {
          buffered.set(name, ev.object);
        } else {
          this.#apply(resource, ev.type, name, ev.object);
        }
        this.#opts.onEvent?.(this, { resource, type: ev.type, name, bytes: raw.object.length + 4 });
      }
    });
    req.on('error', () => {});
    req.on('close', () => {
      this.#streams.delete(req);
      this.synced.delete(resource);
      this.#retry(resource);
    });
    req.end();
  }

  #retry(resource: AgentResource): void {
    if (this.#stopped) return;
    setTimeout(() => void this.#watch(resource), this.#opts.retryMs ?? 200).unref();
  }

  #members(o: unknown): Map<string, GroupMember> {
    const m = new Map<string, GroupMember>();
    for (const g of (o as { groupMembers?: GroupMember[] }).groupMembers ?? []) m.set(groupMemberKey(g), g);
    return m;
  }

  #replace(resource: AgentResource, objects: Map<string, unknown>): void {
    if (resource === 'networkpolicies') {
      this.state.networkpolicies = new Map(objects as Map<string, NetworkPolicy>);
    } else {
      const next = new Map<string, Map<string, GroupMember>>();
      for (const [name, o] of objects) next.set(name, this.#members(o));
      this.state[resource] = next;
    }
  }

  #apply(resource: AgentResource, type: string, name: string, o: unknown): void {
    if (resource === 'networkpolicies') {
      if (type === 'DELETED') this.state.networkpolicies.delete(name);
      else this.state.networkpolicies.set(name, o as NetworkPolicy);
      return;
    }
    const groups = this.state[resource];
    if (type === 'DELETED') groups.delete(name);
    else if (type === 'ADDED') groups.set(name, this.#members(o));
    else if (type === 'MODIFIED') {
      const g = groups.get(name) ?? new Map<string, GroupMember>();
      const p = o as { addedGroupMembers?: GroupMember[]; removedGroupMembers?: GroupMember[] };
      for (const m of p.removedGroupMembers ?? []) g.delete(groupMemberKey(m));
      for (const m of p.addedGroupMembers ?? []) g.set(groupMemberKey(m), m);
      groups.set(name, g);
    }
  }
}

/** A comparable digest of agent state: policy names with their rules' group refs, member keys. */
export function digestAgentState(s: AgentState): Record<string, Record<string, string[]>> {
  const groups = (m: Map<string, Map<string, GroupMember>>) =>
    Object.fromEntries(
      [...m].sort(([a], [b]) => a.localeCompare(b)).map(([n, g]) => [n, [...g.keys()].sort()]),
    );
  return {
    networkpolicies: Object.fromEntries(
      [...s.networkpolicies]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([n, p]) => [
          n,
          [
            ...(p.appliedToGroups ?? []),
            ...(p.rules ?? []).flatMap((r) => [
              ...(r.from?.addressGroups ?? []),
              ...(r.to?.addressGroups ?? []),
            ]),
          ],
        ]),
    ),
    appliedtogroups: groups(s.appliedtogroups),
    addressgroups: groups(s.addressgroups),
  };
}

/** What the stores say `node` should hold, in AgentState form (the reference for digests). */
export function expectedAgentState(
  stores: {
    networkPolicies: Store<InternalNetworkPolicy>;
    appliedToGroups: Store<InternalAppliedToGroup>;
    addressGroups: Store<InternalAddressGroup>;
  },
  node: string,
): AgentState {
  const keyed = (ms: readonly GroupMember[]) => new Map(ms.map((m) => [groupMemberKey(m), m]));
  const state: AgentState = {
    networkpolicies: new Map(),
    appliedtogroups: new Map(),
    addressgroups: new Map(),
  };
  for (const { object, resourceVersion } of stores.networkPolicies.list().items) {
    if (object.span.has(node))
      state.networkpolicies.set(object.name, toWireNetworkPolicy(object, resourceVersion));
  }
  for (const { object } of stores.appliedToGroups.list().items) {
    if (object.span.has(node))
      state.appliedtogroups.set(object.name, keyed(appliedToGroupMembers(object, node)));
  }
  for (const { object } of stores.addressGroups.list().items) {
    if (object.span.has(node)) state.addressgroups.set(object.name, keyed(object.members));
  }
  return state;
}
