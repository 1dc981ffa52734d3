import { CT_ZONE } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { VswitchdAppctl } from '../ovs/vswitchd-appctl.js';

export interface ConntrackCounts {
  /** Connections in the datapath's conntrack table, every zone. */
  readonly total: number;
  /** Connections in Antrea's zone (65520). */
  readonly antrea: number;
  /** The table's size limit. */
  readonly max: number;
}

/** The `Total:` line of `dpctl/ct-stats-show` ("Connections Stats:\n    Total: 12\n  TCP: ..."). */
export function parseCtStatsTotal(out: string): number {
  const m = /^\s*Total:\s*(\d+)\s*$/m.exec(out);
  if (!m) throw new Error(`no Total in dpctl/ct-stats-show output: ${JSON.stringify(out.slice(0, 200))}`);
  return Number(m[1]);
}

/** `dpctl/ct-get-maxconns` prints one number. */
export function parseMaxConns(out: string): number {
  const t = out.trim();
  if (!/^\d+$/.test(t))
    throw new Error(`unexpected dpctl/ct-get-maxconns output: ${JSON.stringify(t.slice(0, 200))}`);
  return Number(t);
}

/** Reads the userspace datapath's conntrack through ovs-vswitchd, as Antrea does on OVS's netdev datapath. */
export async function readConntrack(appctl: VswitchdAppctl): Promise<ConntrackCounts> {
  const [total, antrea, max] = await Promise.all([
    appctl(['dpctl/ct-stats-show']).then(parseCtStatsTotal),
    appctl(['dpctl/ct-stats-show', `zone=${CT_ZONE}`]).then(parseCtStatsTotal),
    appctl(['dpctl/ct-get-maxconns']).then(parseMaxConns),
  ]);
  return { total, antrea, max };
}

export interface ConntrackMetricsOptions {
  readonly registry: Registry;
  readonly read: () => Promise<ConntrackCounts>;
  readonly logger: Logger;
  /** How long one reading serves scrapes (the three gauges and scrapes close together). Default 2 s. */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

/**
 * Antrea's conntrack gauges, read lazily: only when scraped, at most once per cacheMs, never per
 * packet (Antrea's Flow Exporter polls the same counts every flowPollInterval). A failed reading
 * keeps the previous values and is logged; the scrape still succeeds.
 */
export class ConntrackMetrics {
  private readonly log: Logger;
  private last: ConntrackCounts = { total: 0, antrea: 0, max: 0 };
  private reading: Promise<ConntrackCounts> | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private failing = false;

  constructor(private readonly o: ConntrackMetricsOptions) {
    this.log = o.logger.child({ component: 'conntrack-metrics' });
    const registers = [o.registry];
    const counts = () => this.counts();
    new Gauge({
      name: 'antrea_agent_conntrack_total_connection_count',
      help: 'Number of connections in the conntrack table (read from ovs-vswitchd when scraped).',
      registers,
      async collect() {
        this.set((await counts()).total);
      },
    });
    new Gauge({
      name: 'antrea_agent_conntrack_antrea_connection_count',
      help: 'Number of connections in the Antrea ZoneID of the conntrack table (read from ovs-vswitchd when scraped).',
      registers,
      async collect() {
        this.set((await counts()).antrea);
      },
    });
    new Gauge({
      name: 'antrea_agent_conntrack_max_connection_count',
      help: 'Size of the conntrack table (read from ovs-vswitchd when scraped).',
      registers,
      async collect() {
        this.set((await counts()).max);
      },
    });
  }

  /** The cached reading, or a new one when it is older than cacheMs (one in flight at a time). */
  counts(): Promise<ConntrackCounts> {
    const now = (this.o.now ?? Date.now)();
    if (!this.reading || now - this.readAt >= (this.o.cacheMs ?? 2_000)) {
      this.readAt = now;
      this.reading = this.o.read().then(
        (c) => {
          if (this.failing) this.log.info('conntrack readable again');
          this.failing = false;
          this.last = c;
          return c;
        },
        (err: unknown) => {
          if (!this.failing)
            this.log.warn({ err }, 'reading conntrack from ovs-vswitchd failed; keeping the last values');
          this.failing = true;
          return this.last;
        },
      );
    }
    return this.reading;
  }
}
