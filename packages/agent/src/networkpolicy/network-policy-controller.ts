import {
  type AddressGroup,
  type AddressGroupPatch,
  type AppliedToGroup,
  type AppliedToGroupPatch,
  encodeControlplaneObject,
  type NetworkPolicy,
  type NetworkPolicyReference,
} from '@antrea-ts/apis';
import type { Flow, FlowStats, PacketIn2 } from '@antrea-ts/openflow';
import type { Logger } from 'pino';
import type { PodInterface } from '../cniserver/interface-store.js';
import { AgentError } from '../errors.js';
import { CATEGORY_MASK, CATEGORY_SHIFT, CookieCategory } from '../openflow/cookie.js';
import { dnsInterceptFlows } from '../openflow/features/dns-interception.js';
import {
  conjIdOfCookie,
  conjunctionFlows,
  isolationFlows,
  policyBaseFlows,
} from '../openflow/features/network-policy.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import type { FlowSwitch } from '../openflow/of-connection.js';
import type { ServiceGroupSource } from '../proxy/service-group-index.js';
import { auditLine } from './audit-log.js';
import type { ControllerConnection } from './controller-connection.js';
import {
  ControllerWatch,
  POLICY_RESOURCES,
  type PolicyResource,
  type PolicyWatchSink,
} from './controller-watch.js';
import type { ResolvedAddress } from './fqdn/dns-message.js';
import { FqdnCache } from './fqdn/fqdn-cache.js';
import { FqdnController, RULE_REALIZATION_TIMEOUT_MS } from './fqdn/fqdn-controller.js';
import { type CompletedRule, RuleCache } from './rule-cache.js';
import { ConjIdAllocator, computePolicyFlows, type RealizedRule } from './rule-flows.js';

/** The FlowCache owner of every policy flow: one owner, so one update is one diff and one bundle. */
export const POLICY_FLOW_OWNER = 'networkpolicy';
const BASE = '/apis/controlplane.antrea.io/v1beta2';

export interface NetworkPolicyControllerOptions {
  readonly node: string;
  readonly connection: ControllerConnection;
  readonly flows: FlowCache;
  readonly ctx: FlowContext;
  readonly sw: FlowSwitch;
  readonly pods: () => readonly PodInterface[];
  readonly logger: Logger;
  /** How often per-rule counters are sent as a NodeStatsSummary; 0 disables. Default 60 s. */
  readonly statsIntervalMs?: number;
  readonly retryMs?: number;
  /** Where audit-log lines of rules with enableLogging go (one line, no newline). */
  readonly auditLog?: (line: string) => void;
  readonly now?: () => Date;
  /** FQDN peers: the minimum time an address is kept, the agent's own lookups of exact names. */
  readonly fqdn?: {
    readonly minTtlSeconds?: number;
    readonly resolve?: (name: string) => Promise<ResolvedAddress[]>;
    readonly realizeTimeoutMs?: number;
  };
  /**
   * AntreaProxy's select groups per Service, for `toServices` peers. Without it (AntreaProxy off)
   * such peers match nothing, as in Antrea, where they need AntreaProxy.
   */
  readonly serviceGroups?: ServiceGroupSource;
  /**
   * NodeNetworkPolicy (feature gate): receives, at each realization, the rules applied to this Node
   * itself (appliedTo nodeSelector), which are enforced in the Node's iptables rather than in OVS.
   */
  readonly nodeRules?: { sync(rules: readonly CompletedRule[]): Promise<void> };
}

interface Counters {
  packets: bigint;
  bytes: bigint;
  sessions: bigint;
}

/**
 * antrea-agent's NetworkPolicy controller: the controller watch feeds the rule cache; every change
 * (policies, groups, local Pods) is realized as the diff of all policy flows in one bundle, and
 * the realized generation of each policy is reported back; per-rule counters are reported as
 * NodeStatsSummary deltas. While the controller is unreachable the installed flows stay and the last
 * state is still realized for local changes (Pods, FQDN answers, Service groups); after a reconnect
 * the state is replaced at the BOOKMARK of all three watches and only what changed is sent to the
 * switch (conjunction ids are stable per rule, so unchanged rules yield identical flows).
 */
export class NetworkPolicyController implements PolicyWatchSink {
  private readonly log: Logger;
  readonly cache = new RuleCache();
  private readonly ids = new ConjIdAllocator();
  private readonly watch: ControllerWatch;
  private readonly synced = new Set<PolicyResource>();
  /**
   * Whether the cache holds a state that came in whole: false until every resource's initial state
   * is in, and again from the first replace or event that arrives while some watch is re-listing
   * (new policies with old groups could open or close traffic they should not) until every
   * resource is in. A watch that merely ended leaves the last whole state, which stays realizable:
   * during a controller outage local Pod changes, FQDN answers and Service groups still apply.
   */
  private consistent = false;
  private everSynced = false;
  private dirty = false;
  private running: Promise<void> | undefined;
  private realized: RealizedRule[] = [];
  private byConjId = new Map<number, { rule: RealizedRule['rule']; priority: number }>();
  private readonly reported = new Map<string, number>();
  private readonly lastCounters = new Map<number, Counters>();
  private statsTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private syncWaiters: Array<() => void> = [];
  /** Number of completed realizations (for tests and metrics). */
  realizations = 0;
  /** Realizations asked for by realizeNow(), and the waiters for them. */
  private requested = 0;
  /**
   * The FQDN cache version the installed flows were computed from; -1 after a failed realization
   * (as Antrea, every DNS answer then waits for a successful one).
   */
  private realizedFqdnVersion = 0;
  private realizeWaiters: Array<{ gen: number; resolve: (ok: boolean) => void }> = [];
  /** FQDN peers: the addresses DNS answers gave the names that rules select. */
  readonly fqdnCache: FqdnCache;
  private readonly fqdn: FqdnController;
  /** Services that `toServices` peers of rules with local Pods named at the last realization. */
  private referencedServices = new Set<string>();
  private unsubscribeServiceGroups: (() => void) | undefined;

  constructor(private readonly options: NetworkPolicyControllerOptions) {
    this.log = options.logger.child({ component: 'networkpolicy' });
    this.watch = new ControllerWatch({
      node: options.node,
      connection: options.connection,
      sink: this,
      logger: options.logger,
      ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    });
    this.fqdnCache = new FqdnCache({
      ...(options.fqdn?.minTtlSeconds !== undefined ? { minTtlSeconds: options.fqdn.minTtlSeconds } : {}),
    });
    this.fqdn = new FqdnController({
      cache: this.fqdnCache,
      realize: (withinMs) => this.realizeNow(withinMs),
      upToDate: () => this.realizedFqdnVersion === this.fqdnCache.version,
      logger: options.logger,
      ...(options.fqdn?.resolve ? { resolve: options.fqdn.resolve } : {}),
      ...(options.fqdn?.realizeTimeoutMs !== undefined
        ? { realizeTimeoutMs: options.fqdn.realizeTimeoutMs }
        : {}),
    });
  }

  start(signal?: AbortSignal): void {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.cache.setPods(this.localPods());
    this.unsubscribeServiceGroups = this.options.serviceGroups?.onChange((svcKeys) =>
      this.serviceGroupsChanged(svcKeys),
    );
    this.watch.start(signal);
    const every = this.options.statsIntervalMs ?? 60_000;
    if (every > 0) {
      this.statsTimer = setInterval(
        () => void this.reportStats().catch((err) => this.log.warn({ err }, 'stats report failed')),
        every,
      );
      this.statsTimer.unref();
    }
  }

  /** Stops watching and reporting; installed flows stay (Pods stay protected while the agent is away). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.watch.stop();
    this.fqdn.stop();
    this.unsubscribeServiceGroups?.();
    if (this.statsTimer) clearInterval(this.statsTimer);
    await this.running;
    for (const w of this.realizeWaiters.splice(0)) w.resolve(false);
    this.options.connection.close();
  }

  /** The rules realized on this Node with their conjunction ids (agent API, support bundles). */
  realizedRules(): readonly RealizedRule[] {
    return this.realized;
  }

  /** Resolves once the initial state of all three resources has been realized. */
  waitSynced(): Promise<void> {
    if (this.everSynced && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /**
   * Realizes the policies again (e.g. FQDN addresses changed); resolves once a realization that
   * started after the call has finished: true when it succeeded. Before the initial state of every
   * resource is in, it waits for that. With `withinMs`, it resolves false when that time is up and
   * its waiter goes (DNS answers waiting out a controller resync do not pile up here).
   */
  realizeNow(withinMs?: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    const gen = ++this.requested;
    const done = new Promise<boolean>((resolve) => {
      const waiter = { gen, resolve };
      this.realizeWaiters.push(waiter);
      if (withinMs === undefined) return;
      const timer = setTimeout(() => {
        this.realizeWaiters = this.realizeWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, withinMs);
      waiter.resolve = (ok) => {
        clearTimeout(timer);
        resolve(ok);
      };
    });
    this.schedule();
    return done;
  }

  /**
   * An intercepted DNS response (paused by the switch): resolves true when it may go on to the Pod,
   * after the rules its answers changed are realized.
   */
  async onDnsResponse(pi: PacketIn2): Promise<boolean> {
    // Until the first realization no rule selects a name (after an agent restart the previous
    // run's interception flows are still in): wait for it, briefly, so the answer is learned.
    if (!this.everSynced)
      await this.syncedWithin(this.options.fqdn?.realizeTimeoutMs ?? RULE_REALIZATION_TIMEOUT_MS);
    return this.fqdn.onDnsResponse(pi.packet);
  }

  /**
   * Waits for the first realization, at most `ms`. A waiter that times out leaves syncWaiters, so
   * answers to Pods of an agent that cannot reach the controller do not pile up there.
   */
  private syncedWithin(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.syncWaiters = this.syncWaiters.filter((w) => w !== done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.syncWaiters.push(done);
    });
  }

  /**
   * The select groups of some Services changed (created, deleted, ports changed): rules whose
   * `toServices` name one of them are realized again; other Services' changes cost nothing.
   */
  private serviceGroupsChanged(svcKeys: readonly string[]): void {
    if (svcKeys.some((k) => this.referencedServices.has(k))) this.schedule();
  }

  /** The local Pods changed (CNI ADD/DEL). */
  podsChanged(): void {
    this.cache.setPods(this.localPods());
    this.schedule();
  }

  replace(resource: PolicyResource, objects: readonly unknown[]): void {
    if (resource === 'networkpolicies') this.cache.replacePolicies(objects as NetworkPolicy[]);
    else this.cache.replaceGroups(resource, objects as Array<AppliedToGroup | AddressGroup>);
    this.synced.add(resource);
    this.consistent = this.synced.size === POLICY_RESOURCES.length;
    this.log.info({ resource, objects: objects.length }, 'initial state received');
    this.schedule();
  }

  apply(
    resource: PolicyResource,
    type: 'ADDED' | 'MODIFIED' | 'DELETED',
    name: string,
    object: unknown,
  ): void {
    if (this.synced.size < POLICY_RESOURCES.length) this.consistent = false;
    if (resource === 'networkpolicies') {
      if (type === 'DELETED') this.cache.deletePolicy(name);
      else this.cache.upsertPolicy(object as NetworkPolicy);
    } else if (type === 'DELETED') this.cache.deleteGroup(resource, name);
    else if (type === 'ADDED') this.cache.upsertGroup(resource, object as AppliedToGroup | AddressGroup);
    else {
      const p = object as AppliedToGroupPatch | AddressGroupPatch;
      if ('groupMembers' in (object as object)) this.cache.upsertGroup(resource, object as AddressGroup);
      else this.cache.patchGroup(resource, name, p.addedGroupMembers, p.removedGroupMembers);
    }
    this.schedule();
  }

  lost(resource: PolicyResource): void {
    // The last whole state stays realizable until new state starts to arrive (see `consistent`).
    this.synced.delete(resource);
  }

  private localPods() {
    return this.options
      .pods()
      .map((p) => ({ namespace: p.podNamespace, name: p.podName, ofport: p.ofport, ip: p.ip }));
  }

  private schedule(): void {
    if (!this.consistent || this.stopped) return;
    this.dirty = true;
    if (this.running) return;
    this.running = (async () => {
      // Changes that arrive while a bundle is in flight are coalesced into the next realization.
      while (this.dirty && !this.stopped) {
        this.dirty = false;
        await this.realize();
      }
    })().finally(() => {
      this.running = undefined;
      if (this.everSynced) for (const w of this.syncWaiters.splice(0)) w();
    });
  }

  private async realize(): Promise<void> {
    const started = performance.now();
    const gen = this.requested;
    const fqdnVersion = this.fqdnCache.version;
    const rules = this.cache.rules();
    let flows: Flow[];
    let failure: string | undefined;
    try {
      const fqdnRules = rules.filter((r) => r.peer.fqdns.length > 0 && r.appliedTo.length > 0);
      this.fqdn.setSelectors(fqdnRules.flatMap((r) => r.peer.fqdns));
      // Read before the group ids: a change from now on is checked against this set.
      this.referencedServices = new Set(
        rules.filter((r) => r.appliedTo.length > 0).flatMap((r) => r.peer.toServices),
      );
      const groups = this.options.serviceGroups;
      const computed = computePolicyFlows(rules, this.ids, {
        fqdnAddresses: (patterns) => this.fqdnCache.addresses(patterns),
        ...(groups ? { serviceGroupIds: (keys) => keys.flatMap((k) => groups.groupIds(k)) } : {}),
      });
      flows = [
        ...policyBaseFlows(this.options.ctx),
        ...conjunctionFlows(this.options.ctx, computed.conjunctions),
        ...isolationFlows(this.options.ctx, computed.isolation),
        ...dnsInterceptFlows(this.options.ctx, fqdnPodPorts(fqdnRules)),
      ];
      await this.options.flows.replace(POLICY_FLOW_OWNER, flows);
      await this.options.nodeRules?.sync(rules.filter((r) => r.appliedToNodes.includes(this.options.node)));
      this.realizedFqdnVersion = fqdnVersion;
      this.realized = computed.realized;
      const priorities = new Map(computed.conjunctions.map((cj) => [cj.conjId, cj.actionPriority]));
      const byConj = new Map<number, { rule: RealizedRule['rule']; priority: number }>();
      for (const r of computed.realized) {
        for (const id of r.conjIds) byConj.set(id, { rule: r.rule, priority: priorities.get(id) ?? 0 });
      }
      this.byConjId = byConj;
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
      this.realizedFqdnVersion = -1;
      this.log.error(
        {
          err: new AgentError('AGENT_POLICY_REALIZATION_FAILED', 'realizing policies failed', { cause: err }),
        },
        'policy realization failed',
      );
      flows = [];
    }
    this.realizations++;
    for (const w of this.realizeWaiters.filter((x) => x.gen <= gen)) w.resolve(failure === undefined);
    this.realizeWaiters = this.realizeWaiters.filter((x) => x.gen > gen);
    const first = !this.everSynced;
    this.everSynced = true;
    this.log.info(
      {
        rules: rules.length,
        flows: flows.length,
        ms: Math.round(performance.now() - started),
        initial: first,
      },
      failure ? 'policy realization failed' : 'policies realized',
    );
    void this.reportStatus(failure);
  }

  /** The realized rule a conjunction id stands for (Traceflow names the rule that decided). */
  ruleOfConjId(conjId: number): RealizedRule['rule'] | undefined {
    return this.byConjId.get(conjId)?.rule;
  }

  /** Writes the audit-log line of a packet-in from a rule with enableLogging. */
  logPacket(pi: PacketIn2): void {
    const sink = this.options.auditLog;
    if (!sink) return;
    const entry = this.byConjId.get(conjIdOfCookie(pi.cookie ?? 0n));
    if (!entry) return;
    const ipToPod = new Map(this.options.pods().map((p) => [p.ip, `${p.podNamespace}/${p.podName}`]));
    const line = auditLine(
      pi,
      entry.rule,
      entry.priority,
      this.options.ctx.pipeline,
      (ip) => ipToPod.get(ip),
      (this.options.now ?? (() => new Date()))(),
    );
    if (line) sink(line);
  }

  /** Realization status per policy and generation (networkpolicies/{name}/status). */
  private async reportStatus(failure: string | undefined): Promise<void> {
    const names = this.cache.policyNames();
    for (const name of names) {
      const p = this.cache.policy(name)!;
      const generation = p.metadata.generation ?? 0;
      if (!failure && this.reported.get(name) === generation) continue;
      const body = encodeControlplaneObject('NetworkPolicyStatus', {
        metadata: { name },
        nodes: [
          {
            nodeName: this.options.node,
            generation,
            realizationFailure: failure !== undefined,
            ...(failure ? { message: failure } : {}),
          },
        ],
      });
      try {
        const status = await this.options.connection.post(`${BASE}/networkpolicies/${name}/status`, body);
        if (status >= 200 && status < 300 && !failure) this.reported.set(name, generation);
        else if (status >= 300)
          this.log.warn({ policy: name, status }, 'controller refused realization status');
      } catch (err) {
        this.log.warn({ err, policy: name }, 'sending realization status failed');
      }
    }
    for (const name of [...this.reported.keys()]) if (!this.cache.policy(name)) this.reported.delete(name);
  }

  /** Per-conjunction counters from the metric flows (packets, bytes; sessions = first packets). */
  async ruleCounters(): Promise<Map<number, Counters>> {
    const { ctx, sw } = this.options;
    const metric = new Set([ctx.pipeline.id('IngressMetric'), ctx.pipeline.id('EgressMetric')]);
    const dump: FlowStats[] = await sw.dumpFlows({
      cookie: BigInt(CookieCategory.NetworkPolicy) << CATEGORY_SHIFT,
      cookieMask: CATEGORY_MASK,
    });
    const out = new Map<number, Counters>();
    for (const f of dump) {
      if (!metric.has(f.table ?? 0)) continue;
      const id = conjIdOfCookie(f.cookie ?? 0n);
      if (id === 0) continue;
      const c = out.get(id) ?? { packets: 0n, bytes: 0n, sessions: 0n };
      const packets = f.packetCount ?? 0n;
      c.packets += packets;
      c.bytes += f.byteCount ?? 0n;
      const ct = f.match.find((m) => m.field === 'ct_state');
      // The +new flow counts each connection's first packet; a drop flow counts every attempt.
      if (!ct || (ct.value & 1n) === 1n) c.sessions += packets;
      out.set(id, c);
    }
    return out;
  }

  /** Sends the counters that grew since the last report as a NodeStatsSummary. */
  async reportStats(): Promise<void> {
    if (this.stopped || !this.everSynced) return;
    const counters = await this.ruleCounters();
    type Stats = { packets: number; bytes: number; sessions: number };
    const perPolicy = new Map<
      string,
      { ref: NetworkPolicyReference; total: Stats; rules: Map<string, Stats> }
    >();
    for (const { rule, conjIds } of this.realized) {
      const ref = rule.policy.sourceRef;
      if (!ref) continue;
      for (const id of conjIds) {
        const now = counters.get(id);
        if (!now) continue;
        const before = this.lastCounters.get(id) ?? { packets: 0n, bytes: 0n, sessions: 0n };
        // Counters restart from zero when flows are re-added (e.g. ovs-vswitchd restarted).
        const d = (a: bigint, b: bigint) => Number(a >= b ? a - b : a);
        const delta = {
          packets: d(now.packets, before.packets),
          bytes: d(now.bytes, before.bytes),
          sessions: d(now.sessions, before.sessions),
        };
        this.lastCounters.set(id, now);
        if (delta.packets === 0 && delta.sessions === 0) continue;
        const key = rule.policy.metadata.name;
        const entry = perPolicy.get(key) ?? {
          ref,
          total: { packets: 0, bytes: 0, sessions: 0 },
          rules: new Map(),
        };
        entry.total.packets += delta.packets;
        entry.total.bytes += delta.bytes;
        entry.total.sessions += delta.sessions;
        const rname = rule.rule.name ?? '';
        if (rname) {
          const r = entry.rules.get(rname) ?? { packets: 0, bytes: 0, sessions: 0 };
          r.packets += delta.packets;
          r.bytes += delta.bytes;
          r.sessions += delta.sessions;
          entry.rules.set(rname, r);
        }
        perPolicy.set(key, entry);
      }
    }
    if (perPolicy.size === 0) return;
    const lists = {
      networkPolicies: [] as unknown[],
      antreaClusterNetworkPolicies: [] as unknown[],
      antreaNetworkPolicies: [] as unknown[],
    };
    for (const { ref, total, rules } of perPolicy.values()) {
      const item = {
        networkPolicy: ref,
        trafficStats: total,
        ...(rules.size > 0
          ? { ruleTrafficStats: [...rules].map(([name, trafficStats]) => ({ name, trafficStats })) }
          : {}),
      };
      if (ref.type === 'K8sNetworkPolicy') lists.networkPolicies.push(item);
      else if (ref.type === 'AntreaClusterNetworkPolicy') lists.antreaClusterNetworkPolicies.push(item);
      else if (ref.type === 'AntreaNetworkPolicy') lists.antreaNetworkPolicies.push(item);
    }
    const body = encodeControlplaneObject('NodeStatsSummary', {
      metadata: { name: this.options.node },
      ...Object.fromEntries(Object.entries(lists).filter(([, v]) => v.length > 0)),
    } as never);
    const status = await this.options.connection.post(`${BASE}/nodestatssummaries`, body);
    if (status >= 300) this.log.warn({ status }, 'controller refused NodeStatsSummary');
  }
}

/** The ports of the local Pods whose DNS responses are intercepted: those with FQDN egress rules. */
function fqdnPodPorts(rules: readonly CompletedRule[]): number[] {
  return rules.flatMap((r) => r.appliedTo.map((a) => a.pod.ofport));
}
