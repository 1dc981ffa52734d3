import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FlowOp, FlowOpsObserver } from '../openflow/flow-cache.js';
import type { Pipeline } from '../openflow/pipeline.js';

const OPERATIONS: readonly FlowOp[] = ['add', 'modify', 'delete'];

export interface OvsFlowSource {
  readonly pipeline: Pipeline;
  /** Flows the agent holds on br-int per table id, read at scrape time. */
  flowsPerTable(): ReadonlyMap<number, number>;
}

/**
 * Antrea's OVS flow metrics (pkg/agent/metrics): flows per table, and the flow operations the
 * agent sends, counted as Antrea counts them: once per bundle and kind of operation it carries
 * (a bundle holding adds and deletes counts one add and one delete), its latency observed per kind.
 */
export class OvsFlowMetrics implements FlowOpsObserver {
  private readonly ops: Counter<'operation'>;
  private readonly errors: Counter<'operation'>;
  private readonly latency: Histogram<'operation'>;

  constructor(registry: Registry, source: OvsFlowSource) {
    const registers = [registry];
    new Gauge({
      name: 'antrea_agent_ovs_flow_count',
      help: 'Flow count for each OVS flow table. The TableID and TableName are used as labels.',
      labelNames: ['table_id', 'table_name'],
      registers,
      collect() {
        const counts = source.flowsPerTable();
        // Every table of the pipeline, empty ones at 0, so a series never just disappears.
        for (const t of source.pipeline.tables)
          this.set({ table_id: String(t.id), table_name: t.name }, counts.get(t.id) ?? 0);
      },
    });
    this.ops = new Counter({
      name: 'antrea_agent_ovs_flow_ops_count',
      help: 'Number of OVS flow operations, partitioned by operation type (add, modify and delete).',
      labelNames: ['operation'],
      registers,
    });
    this.errors = new Counter({
      name: 'antrea_agent_ovs_flow_ops_error_count',
      help: 'Number of OVS flow operation errors, partitioned by operation type (add, modify and delete).',
      labelNames: ['operation'],
      registers,
    });
    this.latency = new Histogram({
      name: 'antrea_agent_ovs_flow_ops_latency_milliseconds',
      help: 'The latency of OVS flow operations, partitioned by operation type (add, modify and delete).',
      labelNames: ['operation'],
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000],
      registers,
    });
    // Exported from the start, before the first operation of each kind (as Antrea does).
    for (const operation of OPERATIONS) {
      this.ops.inc({ operation }, 0);
      this.errors.inc({ operation }, 0);
      this.latency.zero({ operation });
    }
  }

  bundleSent(ops: ReadonlySet<FlowOp>, ms: number, ok: boolean): void {
    for (const operation of ops) {
      this.latency.observe({ operation }, ms);
      (ok ? this.ops : this.errors).inc({ operation });
    }
  }
}
