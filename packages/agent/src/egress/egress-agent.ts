import type { CrdCondition, Egress, EgressConditionType, EgressStatus } from '@antrea-ts/apis';
import { EGRESS_CONDITION_REASONS, SyncLoop, withEgressCondition } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';
import type { ControllerConnection } from '../networkpolicy/controller-connection.js';
import { ControllerWatch } from '../networkpolicy/controller-watch.js';
import { egressFlows, egressStaticFlows } from '../openflow/features/egress.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import type { FlowContext } from '../openflow/flow-context.js';
import { EgressSnat, type EgressSnatRule } from '../snat/egress-snat.js';
import { EgressAddresses } from './egress-address.js';
import {
  type EgressGroupCache as Cache,
  EGRESS_GROUP_RESOURCE,
  EgressGroupCache,
} from './egress-group-cache.js';
import { choosePoolNode } from './egress-node-selection.js';
import { MAX_EGRESS_IPS_UPPER_BOUND, schedulePoolEgresses } from './egress-placement.js';
import type { EgressSource } from './egress-source.js';

export interface EgressAgentOptions {
  nodeName: string;
  source: EgressSource;
  connection: ControllerConnection;
  flows: FlowCache;
  ctx: FlowContext;
  /** Runs ip and iptables in the Node's network namespace. */
  runner: CommandRunner;
  transportInterface: string;
  gatewayName: string;
  gatewayMac: string;
  logger: Logger;
  now?: () => Date;
  retryMs?: number;
  /** `egress.maxEgressIPsPerNode`: pool IPs a Node holds at most, unless its annotation says (default 255). */
  maxEgressIpsPerNode?: number;
  /** `egress.exceptCIDRs`: destinations the Egress Pods reach from their own Node, without Egress SNAT. */
  exceptCidrs?: readonly string[];
}

/** Where one Egress's IP lives, as this agent computes it. */
interface Placement {
  readonly egress: Egress;
  readonly ip: string;
  /** This Node holds the IP. */
  readonly local: boolean;
  /** No Node qualifies for the pool Egress (why), and this Node is the one that says so in its status. */
  readonly reportsUnplaced?: keyof typeof UNPLACED_MESSAGES | undefined;
}

const OWNER_PREFIX = 'egress/';
const STATIC_OWNER = 'egress-static';
const MAX_MARK = 255;
const UNPLACED_MESSAGES = {
  noNode: (pool: string) => `no Ready Node is selected by ExternalIPPool ${pool}`,
  full: (pool: string) =>
    `no Node available: every Ready Node ExternalIPPool ${pool} selects holds its maximum of Egress IPs`,
};

/**
 * antrea-agent's Egress side (Antrea pkg/agent/controller/egress). Every agent computes the same
 * placement: an Egress with a pool lives on the Node its name hashes to among the Ready Nodes the
 * pool's nodeSelector selects (choosePoolNode); one with a static egressIP lives where that IP
 * already is. The Egress Node puts the IP on its transport interface, SNATs to it and reports it in
 * the Egress status; every Node sends its own members' external traffic there (EgressMark flows).
 * Syncs are whole (the state is small), serialized and coalesced.
 */
export class EgressAgent {
  readonly #o: EgressAgentOptions;
  readonly #log: Logger;
  readonly #groups: Cache;
  readonly #watch: ControllerWatch<typeof EGRESS_GROUP_RESOURCE>;
  readonly #addresses: EgressAddresses;
  readonly #snat: EgressSnat;
  /** SNAT marks of this Node's Egress IPs, kept stable while an IP stays here. */
  readonly #marks = new Map<string, number>();
  /**
   * The pool IPs this agent put on the transport interface and has not removed yet (read back from
   * the SNAT chain at start, where each sync records them): whatever of these no Egress wants here
   * any more goes, even when its Egress or pool was deleted while the agent was down.
   */
  #assigned = new Set<string>();
  #started = false;
  #startedAt = 0;
  #isSynced = false;
  readonly #loop: SyncLoop;
  #firstSynced: () => void = () => {};
  readonly #firstSync = new Promise<void>((resolve) => {
    this.#firstSynced = resolve;
  });

  constructor(opts: EgressAgentOptions) {
    this.#o = opts;
    this.#log = opts.logger.child({ component: 'egress-agent' });
    this.#loop = new SyncLoop({
      sync: () => this.#sync(),
      onError: (err) => this.#log.warn({ err }, 'Egress sync failed; retrying'),
      ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
    });
    this.#groups = new EgressGroupCache(() => this.#loop.schedule());
    this.#watch = new ControllerWatch({
      node: opts.nodeName,
      connection: opts.connection,
      sink: this.#groups,
      resources: [EGRESS_GROUP_RESOURCE],
      logger: opts.logger,
    });
    this.#addresses = new EgressAddresses(opts.runner, opts.transportInterface);
    this.#snat = new EgressSnat(opts.runner, opts.logger, opts.gatewayName);
  }

  /**
   * Starts the informers, the EgressGroups watch and the sync loop, without waiting for the
   * controller: the agent's start does not pay for it, and `synced()` tells when this run's flows
   * are all in (the agent removes the previous run's Egress flows then). The iptables chains are not
   * flushed meanwhile and each Egress IP keeps the mark it had (read back from the SNAT chain), so
   * SNAT goes on through a restart.
   */
  async start(signal?: AbortSignal): Promise<void> {
    this.#startedAt = performance.now();
    this.#started = true;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const [previous] = await Promise.all([
      this.#snat.existing(),
      this.#o.source.start(() => this.#loop.schedule()),
    ]);
    // A restart keeps each IP's mark: until the first sync replaces them, the flows installed by the
    // previous run give its packets that mark's source MAC, which must still SNAT to the same IP.
    for (const r of previous) {
      const taken = new Set(this.#marks.values());
      if (r.mark >= 1 && r.mark <= MAX_MARK && !taken.has(r.mark)) this.#marks.set(r.ip, r.mark);
      if (r.assigned) this.#assigned.add(r.ip);
    }
    this.#watch.start(signal);
    this.#loop.start();
  }

  /** Resolves once a sync has run with the controller's EgressGroups: every Egress flow is in. */
  synced(): Promise<void> {
    return this.#firstSync;
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    this.#watch.stop();
    await this.#o.source.stop();
    await this.#loop.stop();
  }

  /** Settles when no sync is running or queued (tests). */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  async #placements(): Promise<Placement[]> {
    const nodes = this.#o.source.nodes().filter((n) => n.ready);
    const egresses = this.#o.source.egresses();
    const out: Placement[] = [];
    const scheduled = schedulePoolEgresses({
      egresses,
      pool: (name) => this.#o.source.pool(name),
      nodes,
      maxEgressIpsPerNode: this.#o.maxEgressIpsPerNode ?? MAX_EGRESS_IPS_UPPER_BOUND,
    });
    for (const p of scheduled) {
      // As Antrea: with no owner, one Node (the IP's hash over the Ready Nodes) writes the failure.
      const reporter =
        p.node === undefined
          ? choosePoolNode(
              p.ip,
              nodes.map((n) => n.name),
            )
          : undefined;
      out.push({
        egress: p.egress,
        ip: p.ip,
        local: p.node === this.#o.nodeName,
        reportsUnplaced: p.node === undefined && reporter === this.#o.nodeName ? p.why : undefined,
      });
    }
    // Static egressIP without a pool: read the Node's addresses once per sync, and only when needed.
    let nodeAddresses: Promise<Set<string>> | undefined;
    for (const egress of egresses) {
      const ip = egress.spec.egressIP;
      if (!ip || ip.includes(':') || egress.spec.externalIPPool) continue;
      nodeAddresses ??= this.#addresses.nodeAddresses();
      out.push({ egress, ip, local: (await nodeAddresses).has(ip) });
    }
    return out;
  }

  async #sync(): Promise<void> {
    const placements = await this.#placements();
    const local = placements.filter((p) => p.local);
    // Marks: kept for IPs that stay, freed for IPs that left, the lowest free one for new IPs.
    const localIps = new Set(local.map((p) => p.ip));
    for (const ip of [...this.#marks.keys()]) if (!localIps.has(ip)) this.#marks.delete(ip);
    for (const ip of localIps) {
      if (this.#marks.has(ip)) continue;
      const used = new Set(this.#marks.values());
      let mark = 1;
      while (used.has(mark) && mark <= MAX_MARK) mark++;
      if (mark > MAX_MARK) {
        this.#log.warn({ ip }, 'no SNAT mark left for this Egress IP');
        continue;
      }
      this.#marks.set(ip, mark);
    }

    // 1. Addresses this agent assigned that no Egress wants here any more go first; the SNAT chain
    //    still records them, so a failure here leaves them known to the next sync or run.
    //    Only an IP with a mark is taken: its SNAT rule is what records it as ours.
    const wanted = new Set(
      local.filter((p) => p.egress.spec.externalIPPool && this.#marks.has(p.ip)).map((p) => p.ip),
    );
    const present = new Set(await this.#addresses.owned((ip) => this.#assigned.has(ip) || wanted.has(ip)));
    for (const ip of present) {
      if (wanted.has(ip) || !this.#assigned.has(ip)) continue;
      this.#log.info({ ip }, 'releasing Egress IP');
      await this.#addresses.remove(ip);
    }

    // 2. SNAT for the IPs here, before flows send packets to it, recording which IPs are assigned;
    //    then the IPs not on the interface yet.
    const rules: EgressSnatRule[] = [...this.#marks].map(([ip, mark]) => ({
      ip,
      mark,
      assigned: wanted.has(ip),
    }));
    await this.#snat.ensure(rules);
    this.#assigned = wanted;
    for (const ip of wanted) {
      if (present.has(ip)) continue;
      this.#log.info({ ip }, 'taking Egress IP');
      await this.#addresses.add(ip);
    }

    // 3. Flows: the entries and Node IP exceptions, then per Egress; owners of Egresses gone are removed.
    const nodeIps = this.#o.source.nodes().flatMap((n) => (n.internalIp ? [n.internalIp] : []));
    await this.#o.flows.replace(
      STATIC_OWNER,
      egressStaticFlows(this.#o.ctx, nodeIps, this.#o.exceptCidrs ?? []),
    );
    const owners = new Set<string>();
    for (const p of placements) {
      const owner = `${OWNER_PREFIX}${p.egress.metadata.name}`;
      owners.add(owner);
      const flows = egressFlows(this.#o.ctx, {
        egressIp: p.ip,
        mark: p.local ? this.#marks.get(p.ip) : undefined,
        localPodIps: this.#groups.podIps(p.egress.metadata.name ?? ''),
        gatewayMac: this.#o.gatewayMac,
      });
      await this.#o.flows.replace(owner, flows);
    }
    for (const owner of this.#o.flows.ownersWithPrefix(OWNER_PREFIX)) {
      if (!owners.has(owner)) await this.#o.flows.remove(owner);
    }

    // 4. Status of the Egresses this Node holds.
    for (const p of local) await this.#reportAssigned(p);
    for (const p of placements)
      if (p.reportsUnplaced) await this.#reportUnplaced(p.egress, p.reportsUnplaced);
    if (this.#groups.synced && !this.#isSynced) {
      this.#isSynced = true;
      this.#firstSynced();
      this.#log.info(
        { msSinceStart: Math.round(performance.now() - this.#startedAt), egresses: placements.length },
        'Egress flows synced with the controller',
      );
    }
  }

  async #reportAssigned(p: Placement): Promise<void> {
    const written = await this.#writeIPAssigned(p.egress, this.#o.nodeName, p.ip, {
      status: 'True',
      reason: EGRESS_CONDITION_REASONS.assigned,
      message: 'EgressIP is successfully assigned to EgressNode',
    });
    if (written) this.#log.info({ egress: p.egress.metadata.name, ip: p.ip }, 'Egress assigned to this Node');
  }

  async #reportUnplaced(egress: Egress, why: keyof typeof UNPLACED_MESSAGES): Promise<void> {
    await this.#writeIPAssigned(egress, undefined, undefined, {
      status: 'False',
      reason: EGRESS_CONDITION_REASONS.assignmentError,
      message: `Failed to assign the IP to EgressNode: ${UNPLACED_MESSAGES[why](egress.spec.externalIPPool ?? '')}`,
    });
  }

  /** Writes egressNode, egressIP and the IPAssigned condition unless they are already so; true if written. */
  async #writeIPAssigned(
    egress: Egress,
    node: string | undefined,
    ip: string | undefined,
    want: Pick<CrdCondition<EgressConditionType>, 'status' | 'reason' | 'message'>,
  ): Promise<boolean> {
    const status = egress.status ?? {};
    const now = (this.#o.now ?? (() => new Date()))();
    const changed = withEgressCondition(status.conditions ?? [], { type: 'IPAssigned', ...want }, now);
    if (!changed && status.egressNode === node && status.egressIP === ip) return false;
    const { egressNode: _n, egressIP: _i, ...rest } = status;
    const next: EgressStatus = {
      ...rest,
      ...(node ? { egressNode: node } : {}),
      ...(ip ? { egressIP: ip } : {}),
      conditions: changed ?? status.conditions ?? [],
    };
    await this.#o.source.updateStatus(egress, next);
    return true;
  }
}
