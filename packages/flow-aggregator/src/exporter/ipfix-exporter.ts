import { IpfixExporter, type IpfixTransport, type TemplateRecord } from '@antrea-ts/ipfix';
import type { Logger } from 'pino';
import type { FlowValues } from '../flow-record.js';
import { aggregatedTemplate, templateValues } from './aggregated-template.js';
import type { FlowRecordExporter } from './flow-record-exporter.js';

export interface IpfixFlowExporterOptions {
  readonly host: string;
  readonly port: number;
  readonly transport: IpfixTransport;
  readonly observationDomainId: number;
  readonly templateRefreshMs: number;
  /** 0: the transport's default. */
  readonly maxMessageBytes: number;
  readonly podLabels: boolean;
  readonly logger: Logger;
}

/**
 * flowCollector with recordFormat IPFIX: the aggregated records to an external collector in one
 * template (the agents' elements, then the aggregation's). A failed session is dropped with the
 * round's records and opened again at the next round, which resends the templates.
 */
export class IpfixFlowExporter implements FlowRecordExporter {
  readonly name = 'ipfix';
  private readonly template: TemplateRecord;
  private readonly exporter: IpfixExporter;
  private readonly log: Logger;
  /** Records lost to a collector that was down. */
  dropped = 0;
  sent = 0;

  constructor(o: IpfixFlowExporterOptions) {
    this.log = o.logger.child({ component: 'ipfix-flow-exporter' });
    this.template = aggregatedTemplate(o.podLabels);
    this.exporter = new IpfixExporter({
      host: o.host,
      port: o.port,
      transport: o.transport,
      domainId: o.observationDomainId,
      templates: [this.template],
      templateRefreshMs: o.templateRefreshMs,
      ...(o.maxMessageBytes > 0 ? { maxMessageBytes: o.maxMessageBytes } : {}),
      logger: o.logger,
    });
  }

  async start(): Promise<void> {
    await this.connect();
  }

  async export(records: readonly Readonly<FlowValues>[]): Promise<void> {
    if (records.length === 0) return;
    if (!this.exporter.connected && !(await this.connect())) {
      this.dropped += records.length;
      return;
    }
    try {
      await this.exporter.send(
        this.template,
        records.map((r) => templateValues(this.template, r)),
      );
      this.sent += records.length;
    } catch (err) {
      this.dropped += records.length;
      this.log.warn({ err, records: records.length }, 'export to the flow collector failed');
      this.exporter.close();
    }
  }

  async stop(): Promise<void> {
    this.exporter.close();
  }

  private async connect(): Promise<boolean> {
    try {
      await this.exporter.connect();
      return true;
    } catch (err) {
      this.log.warn({ err }, 'cannot reach the flow collector; retrying at the next export');
      return false;
    }
  }
}
