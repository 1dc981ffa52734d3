import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AggregatorClientTls } from './aggregator-tls.js';
import type { CollectorTransport } from './collector-address.js';
import { type CollectorSession, collectorServerName, openCollectorSession } from './collector-session.js';
import { type ConnectionMetadata, ConnectionStore } from './connection-store.js';
import { parseConntrackLines } from './conntrack-dump.js';
import { ipv4RecordValues } from './flow-record.js';
import { flowTypeOf, type IpClassifier, UNSUPPORTED_FLOW } from './flow-type.js';

/**
 * Antrea exports at most this many connections per round before looking at the clock again; the
 * event loop gets a turn between rounds.
 */
const MAX_PER_ROUND = 64;
/** Dump lines parsed between two turns of the event loop (a few ms of work). */
const LINES_PER_TURN = 1000;
const MIN_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** Antrea's floor between export rounds. */
const MIN_TICK_MS = 100;

export interface FlowExporterOptions {
  readonly nodeName: string;
  readonly collector: {
    readonly host: string;
    readonly port: number;
    readonly transport: CollectorTransport;
  };
  /** The Flow Aggregator's CA and client certificate, read at each new gRPC session. */
  readonly readTls?: () => Promise<AggregatorClientTls>;
  /** How often conntrack is read (Antrea's flowPollInterval). */
  readonly pollIntervalMs: number;
  readonly activeTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** Default: 5 minutes, or twice the longer export timeout when that is longer (as Antrea). */
  readonly staleTimeoutMs?: number;
  /** The conntrack dump text (`dpctl/dump-conntrack -m -s` of the Node's ovs-vswitchd). */
  readonly dumpConntrack: () => Promise<string>;
  /** Antrea's conntrack zone (65520). */
  readonly zone: number;
  readonly serviceMarkBit: number;
  /** IANA protocol numbers to export; empty: all. */
  readonly protocols?: readonly number[];
  readonly metadata: ConnectionMetadata;
  readonly classify: IpClassifier;
  readonly networkPolicyOnly: boolean;
  /** Resolves a `<namespace>/<name>` collector host to the Service's ClusterIP. */
  readonly resolveService?: (namespace: string, name: string) => Promise<string | undefined>;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Told each poll's duration in seconds, the dump read and applied (antrea_agent_conntrack_poll_cycle_duration_seconds). */
  readonly onPollCycle?: (seconds: number) => void;
}

/** Counters for metrics and tests. */
export interface FlowExporterStats {
  readonly connections: number;
  readonly polls: number;
  readonly recordsExported: number;
  /** Sessions opened to the collector (Antrea's antrea_agent_flow_collector_reconnection_count). */
  readonly reconnections: number;
}

/**
 * antrea-agent's flow exporter (feature gate FlowExporter): polls the Node's conntrack, keeps the
 * connections of local Pods with their Pod, Service and policy metadata, and sends a record for
 * each (IPFIX over tcp/udp, or a `Flow` over Antrea's gRPC export) when its active or idle export
 * timeout comes, or when it ends. While the
 * collector is away connections keep their place in the queue (their deltas grow) and the
 * session is retried with backoff; a new session starts with the template.
 */
export class FlowExporter {
  private readonly log: Logger;
  readonly store: ConnectionStore;
  private exporter: CollectorSession | undefined;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private nextPollMs = 0;
  private retryAtMs = 0;
  private retryDelayMs = MIN_RETRY_MS;
  private counts = { polls: 0, recordsExported: 0, reconnections: 0 };

  constructor(private readonly o: FlowExporterOptions) {
    this.log = o.logger.child({ component: 'flow-exporter' });
    this.now = o.now ?? Date.now;
    this.store = new ConnectionStore({
      activeTimeoutMs: o.activeTimeoutMs,
      idleTimeoutMs: o.idleTimeoutMs,
      staleTimeoutMs: o.staleTimeoutMs ?? Math.max(300_000, 2 * Math.max(o.activeTimeoutMs, o.idleTimeoutMs)),
      metadata: o.metadata,
      serviceMarkBit: o.serviceMarkBit,
      ...(o.protocols ? { protocols: o.protocols } : {}),
    });
  }

  stats(): FlowExporterStats {
    return { connections: this.store.size, ...this.counts };
  }

  start(): void {
    this.log.info(
      {
        collector: this.o.collector,
        pollMs: this.o.pollIntervalMs,
        activeMs: this.o.activeTimeoutMs,
        idleMs: this.o.idleTimeoutMs,
      },
      'flow exporter started',
    );
    this.schedule(0);
  }

  /** Idempotent; closes the collector session. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // Closed first: a send waiting on a collector that stopped reading fails now, not at its timeout.
    this.dropSession();
    await this.running;
    this.dropSession();
  }

  /**
   * Reads conntrack once and updates the store. The dump is parsed and applied in slices with a
   * turn of the event loop between them, so a large conntrack table does not hold up the agent's
   * other work.
   */
  async poll(): Promise<void> {
    const started = performance.now();
    const lines = (await this.o.dumpConntrack()).split('\n');
    const nowMs = this.now();
    this.store.sweep(nowMs);
    for (let i = 0; i < lines.length; i += LINES_PER_TURN) {
      if (i > 0) await nextTurn();
      this.store.apply(parseConntrackLines(lines.slice(i, i + LINES_PER_TURN), this.o.zone), nowMs);
    }
    this.counts.polls++;
    this.o.onPollCycle?.((performance.now() - started) / 1000);
  }

  /** Sends the records that are due; returns how many went out. Throws when the session fails. */
  async exportDue(): Promise<number> {
    const exporter = await this.session();
    if (!exporter) return 0;
    let sent = 0;
    for (let round = 0; ; round++) {
      // A socket write's callback comes before timers and I/O get their turn: yield explicitly.
      if (round > 0) await nextTurn();
      const nowMs = this.now();
      const due = this.store.expire(nowMs, MAX_PER_ROUND);
      if (due.length === 0) return sent;
      const records = [];
      for (const f of due) {
        const type = flowTypeOf(f.conn, this.o.classify, this.o.networkPolicyOnly);
        if (type !== UNSUPPORTED_FLOW) records.push(ipv4RecordValues(f, this.o.nodeName, type));
      }
      if (records.length) await exporter.send(records);
      sent += records.length;
      this.counts.recordsExported += records.length;
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    if (this.now() >= this.nextPollMs) {
      this.nextPollMs = this.now() + this.o.pollIntervalMs;
      await this.poll().catch((err: unknown) => this.log.warn({ err }, 'reading conntrack failed'));
    }
    await this.exportDue().catch((err: unknown) => {
      if (!this.stopped) this.log.warn({ err }, 'exporting flow records failed; reconnecting');
      this.dropSession();
    });
    const now = this.now();
    const due = this.store.nextDueMs() ?? Number.POSITIVE_INFINITY;
    const exportAt = this.exporter?.connected ? due : Math.max(due, this.retryAtMs);
    this.schedule(Math.max(MIN_TICK_MS, Math.min(this.nextPollMs, exportAt) - now));
  }

  /** The live session, opening one when the backoff allows; undefined while waiting to retry. */
  private async session(): Promise<CollectorSession | undefined> {
    if (this.exporter?.connected) return this.exporter;
    if (this.now() < this.retryAtMs) return undefined;
    this.dropSession();
    try {
      const exporter = await openCollectorSession({
        host: await this.resolveHost(this.o.collector.host),
        port: this.o.collector.port,
        transport: this.o.collector.transport,
        serverName: collectorServerName(this.o.collector.host),
        domainId: observationDomainId(this.o.nodeName),
        ...(this.o.readTls ? { readTls: this.o.readTls } : {}),
        logger: this.log,
        now: this.now,
      });
      this.exporter = exporter;
      this.counts.reconnections++;
      this.retryDelayMs = MIN_RETRY_MS;
      return exporter;
    } catch (err) {
      this.log.warn({ err, retryMs: this.retryDelayMs }, 'cannot reach the flow collector');
      this.retryAtMs = this.now() + this.retryDelayMs;
      this.retryDelayMs = Math.min(MAX_RETRY_MS, this.retryDelayMs * 2);
      return undefined;
    }
  }

  private dropSession(): void {
    this.exporter?.close();
    this.exporter = undefined;
  }

  private async resolveHost(host: string): Promise<string> {
    const slash = host.indexOf('/');
    if (slash < 0) return host;
    const ip = await this.o.resolveService?.(host.slice(0, slash), host.slice(slash + 1));
    if (!ip) throw new Error(`Service ${host} has no ClusterIP (or cannot be looked up)`);
    return ip;
  }
}

/** Reads the Node's conntrack through its ovs-vswitchd (`ovs-appctl dpctl/dump-conntrack`), one zone. */
export function ovsConntrackDump(
  appctl: (args: readonly string[]) => Promise<string>,
  zone: number,
): () => Promise<string> {
  return () => appctl(['dpctl/dump-conntrack', '-m', '-s', `zone=${zone}`]);
}

/** Antrea's observation domain id: the 32-bit FNV-1 hash of the Node name. */
export function observationDomainId(nodeName: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(nodeName)) h = (Math.imul(h, 0x01000193) ^ byte) >>> 0;
  return h;
}
