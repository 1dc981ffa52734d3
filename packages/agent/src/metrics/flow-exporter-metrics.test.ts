import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FlowExporterMetrics } from './flow-exporter-metrics.js';

describe('FlowExporterMetrics', () => {
  it("reads the exporter's sessions when scraped, 0 while there is no exporter", async () => {
    const registry = new Registry();
    let stats: { reconnections: number } | undefined;
    new FlowExporterMetrics(registry, () => stats);
    const value = async () =>
      (await registry.getSingleMetric('antrea_agent_flow_collector_reconnection_count')!.get()).values[0]!
        .value;
    expect(await value()).toBe(0);
    stats = { reconnections: 2 };
    expect(await value()).toBe(2);
  });
});
