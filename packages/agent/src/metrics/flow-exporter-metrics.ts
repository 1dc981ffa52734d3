import { Gauge, Histogram, type Registry } from 'prom-client';

/**
 * antrea_agent_flow_collector_reconnection_count: sessions the Flow Exporter opened to its
 * collector, the first included (Antrea counts every successful connect, in a gauge); 0 while the
 * exporter is off. Read from the exporter's own counters when scraped.
 */
export class FlowExporterMetrics {
  /** antrea_agent_conntrack_poll_cycle_duration_seconds: each Flow Exporter poll, read and applied. */
  readonly pollCycle: Histogram;

  constructor(registry: Registry, stats: () => { readonly reconnections: number } | undefined) {
    new Gauge({
      name: 'antrea_agent_flow_collector_reconnection_count',
      help: 'Number of re-connections between Flow Exporter and flow collector.',
      registers: [registry],
      collect() {
        this.set(stats()?.reconnections ?? 0);
      },
    });
    this.pollCycle = new Histogram({
      name: 'antrea_agent_conntrack_poll_cycle_duration_seconds',
      help: 'Duration of conntrack poll cycles, which includes reading all connections from conntrack and processing them.',
      // Antrea's buckets: 10 ms to 10 s.
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }
}
