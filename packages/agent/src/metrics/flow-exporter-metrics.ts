import { Gauge, type Registry } from 'prom-client';

/**
 * antrea_agent_flow_collector_reconnection_count: sessions the Flow Exporter opened to its
 * collector, the first included (Antrea counts every successful connect, in a gauge); 0 while the
 * exporter is off. Read from the exporter's own counters when scraped.
 */
export class FlowExporterMetrics {
  constructor(registry: Registry, stats: () => { readonly reconnections: number } | undefined) {
    new Gauge({
      name: 'antrea_agent_flow_collector_reconnection_count',
      help: 'Number of re-connections between Flow Exporter and flow collector.',
      registers: [registry],
      collect() {
        this.set(stats()?.reconnections ?? 0);
      },
    });
  }
}
