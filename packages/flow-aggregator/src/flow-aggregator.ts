import {
  type DecodedDataRecord,
  type FlowServerTls,
  GrpcFlowCollector,
  type NamedFlowValues,
} from '@antrea-ts/ipfix';
import type { Logger } from 'pino';
import { AggregationProcess, type AggregationStats } from './aggregation.js';
import { CollectingProcess, type CollectorTransport } from './collecting-process.js';
import type { FlowRecordExporter } from './exporter/flow-record-exporter.js';
import type { FlowValues } from './flow-record.js';

export interface FlowAggregatorOptions {
  /** Address the collecting process listens on. */
  readonly host: string;
  /** 4739 in Antrea; 0 picks a free port. */
  readonly port: number;
  /** Empty: no collecting process (aggregatorTransportProtocol none). */
  readonly transports: readonly CollectorTransport[];
  /**
   * The aggregator's serving certificate and CA (CertificateProvider): needed by the gRPC collector
   * and by the `tls` IPFIX transport.
   */
  readonly tls?: FlowServerTls;
  /**
   * Antrea's gRPC collector (FlowExportService, mutual TLS with `tls`), the agents' default
   * transport: its port (14739 in Antrea, 0 picks a free one). Absent: IPFIX only.
   */
  readonly grpcPort?: number;
  readonly activeTimeoutMs: number;
  readonly inactiveTimeoutMs: number;
  readonly exporters: readonly FlowRecordExporter[];
  /** Completes each due record before the exporters see it (Pod metadata, labels). */
  readonly enrich?: (record: FlowValues) => void;
  readonly logger: Logger;
  /** How often due records are looked for (500 ms). */
  readonly expiryIntervalMs?: number;
  readonly now?: () => number;
}

export interface FlowAggregatorStats extends AggregationStats {
  readonly exported: number;
  readonly exportRounds: number;
  readonly decodeErrors: number;
  readonly sessions: number;
  /** Agents' gRPC export streams open now. */
  readonly grpcSessions: number;
}

/**
 * The Flow Aggregator process: the collecting process feeds the aggregation, and every expiry
 * round hands the due records to each exporter in turn (one round at a time: a slow collector
 * delays the next round, it does not stack them).
 */
export class FlowAggregator {
  private readonly log: Logger;
  readonly aggregation: AggregationProcess;
  private collector: CollectingProcess | undefined;
  private grpcCollector: GrpcFlowCollector | undefined;
  private tls: FlowServerTls | undefined;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private exported = 0;
  private exportRounds = 0;
  private started = false;

  constructor(private readonly o: FlowAggregatorOptions) {
    this.log = o.logger.child({ component: 'flow-aggregator' });
    this.aggregation = new AggregationProcess({
      activeTimeoutMs: o.activeTimeoutMs,
      inactiveTimeoutMs: o.inactiveTimeoutMs,
      logger: o.logger,
      ...(o.now ? { now: o.now } : {}),
    });
    this.tls = o.tls;
    this.collector = o.transports.length > 0 ? this.newCollector(o.port) : undefined;
    this.grpcCollector = o.grpcPort !== undefined ? this.newGrpcCollector(o.grpcPort) : undefined;
  }

  private newCollector(port: number): CollectingProcess {
    return new CollectingProcess({
      host: this.o.host,
      port,
      transports: this.o.transports,
      ...(this.tls ? { tls: this.tls } : {}),
      logger: this.o.logger,
      onRecords: (records) => this.take(records),
    });
  }

  private newGrpcCollector(port: number): GrpcFlowCollector | undefined {
    const tls = this.tls;
    return tls
      ? new GrpcFlowCollector({
          host: this.o.host,
          port,
          tls,
          logger: this.o.logger,
          onRecords: (records) => this.takeNamed(records),
        })
      : undefined;
  }

  /**
   * Serves with new certificates (the CA was rotated): the collectors that use TLS restart on the
   * ports they had, dropping their sessions; agents reconnect, reading the new CA and client
   * certificate (Antrea restarts its collectors the same way).
   */
  async updateTls(tls: FlowServerTls): Promise<void> {
    this.tls = tls;
    if (!this.started) return;
    if (this.grpcCollector) {
      const port = this.grpcCollector.port;
      await this.grpcCollector.stop();
      this.grpcCollector = this.newGrpcCollector(port);
      await this.grpcCollector?.start();
    }
    if (this.collector && this.o.transports.includes('tls')) {
      const port = this.collector.port;
      await this.collector.stop();
      this.collector = this.newCollector(port);
      await this.collector.start();
    }
    this.log.info('collectors restarted with new certificates');
  }

  /** The collecting process's port (0 without one). */
  get port(): number {
    return this.collector?.port ?? 0;
  }

  /** The gRPC collector's port (0 without one). */
  get grpcPort(): number {
    return this.grpcCollector?.port ?? 0;
  }

  get ready(): boolean {
    return this.started;
  }

  stats(): FlowAggregatorStats {
    return {
      ...this.aggregation.stats(),
      exported: this.exported,
      exportRounds: this.exportRounds,
      decodeErrors: (this.collector?.decodeErrors ?? 0) + (this.grpcCollector?.decodeErrors ?? 0),
      sessions: this.collector?.sessions ?? 0,
      grpcSessions: this.grpcCollector?.sessions ?? 0,
    };
  }

  async start(signal?: AbortSignal): Promise<void> {
    for (const e of this.o.exporters) await e.start();
    await this.collector?.start();
    await this.grpcCollector?.start();
    this.timer = setInterval(() => void this.flush(), this.o.expiryIntervalMs ?? 500);
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.started = true;
    this.log.info(
      { port: this.port, grpcPort: this.grpcPort, exporters: this.o.exporters.map((e) => e.name) },
      'flow aggregator started',
    );
  }

  /** Runs one expiry round now (or joins the one in progress). */
  flush(): Promise<void> {
    this.round ??= this.exportDue().finally(() => {
      this.round = undefined;
    });
    return this.round;
  }

  /** Idempotent: stops collecting, exports what is due, stops the exporters. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    clearInterval(this.timer);
    await this.collector?.stop();
    await this.grpcCollector?.stop();
    await this.flush();
    for (const e of this.o.exporters) await e.stop();
  }

  private take(records: readonly DecodedDataRecord[]): void {
    for (const r of records) this.aggregation.add(r.values as FlowValues);
  }

  private takeNamed(records: readonly NamedFlowValues[]): void {
    for (const r of records) this.aggregation.add(r as FlowValues);
  }

  private async exportDue(): Promise<void> {
    const due: FlowValues[] = [];
    this.aggregation.expire((r) => due.push(r));
    if (due.length === 0) return;
    if (this.o.enrich) for (const r of due) this.o.enrich(r);
    this.exportRounds++;
    for (const e of this.o.exporters) {
      try {
        await e.export(due);
      } catch (err) {
        this.log.warn({ err, exporter: e.name }, 'exporter failed');
      }
    }
    this.exported += due.length;
  }
}
