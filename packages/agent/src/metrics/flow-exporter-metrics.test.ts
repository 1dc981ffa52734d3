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

  it('keeps each conntrack poll in Antrea’s poll-cycle histogram (10 ms to 10 s buckets)', async () => {
    const registry = new Registry();
    const m = new FlowExporterMetrics(registry, () => undefined);
    m.pollCycle.observe(0.02);
    m.pollCycle.observe(3);
    const values = (
      await registry.getSingleMetric('antrea_agent_conntrack_poll_cycle_duration_seconds')!.get()
    ).values;
    const bucket = (le: number) => values.find((v) => v.labels['le'] === le)?.value;
    expect(bucket(0.01)).toBe(0);
    expect(bucket(0.025)).toBe(1);
    expect(bucket(5)).toBe(2);
    expect(bucket(10)).toBe(2);
  });
});
