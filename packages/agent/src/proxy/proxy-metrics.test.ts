import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ProxyMetrics } from './proxy-metrics.js';
import type { ServiceHandlers, ServiceSource } from './service-source.js';

/** A source whose events the test sends by hand. */
class HandSource implements ServiceSource {
  h: ServiceHandlers | undefined;
  async start(h: ServiceHandlers): Promise<void> {
    this.h = h;
  }
  async stop(): Promise<void> {}
}

const svc = (name: string, clusterIP: string): V1Service => ({
  metadata: { namespace: 'ns', name },
  spec: { clusterIP, clusterIPs: [clusterIP] },
});
const slice = (name: string, addressType: string): V1EndpointSlice => ({
  metadata: { namespace: 'ns', name },
  addressType,
  endpoints: [],
});

describe('ProxyMetrics.countUpdates', () => {
  it('counts Service and EndpointSlice events as Antrea does and passes every event on', async () => {
    const registry = new Registry();
    const metrics = new ProxyMetrics(registry);
    const source = new HandSource();
    const seen: string[] = [];
    await metrics.countUpdates(source).start({
      upsertService: (s) => seen.push(`svc ${s.metadata?.name}`),
      removeService: (k) => seen.push(`-svc ${k}`),
      upsertSlice: (s) => seen.push(`slice ${s.metadata?.name}`),
      removeSlice: (k) => seen.push(`-slice ${k}`),
      synced: () => seen.push('synced'),
    });
    const h = source.h!;
    h.upsertService(svc('a', '10.96.0.10')); // counted
    h.upsertService(svc('a', '10.96.0.10')); // an update: counted
    h.upsertService(svc('headless', 'None')); // no cluster IP: not counted
    h.upsertService(svc('v6', 'fd00::10')); // not this proxier's family
    h.removeService('ns/a'); // counted
    h.removeService('ns/headless'); // not counted
    h.upsertSlice(slice('a-1', 'IPv4')); // counted
    h.upsertSlice(slice('a-1', 'IPv4')); // counted
    h.upsertSlice(slice('v6-1', 'IPv6'));
    h.removeSlice('ns/a-1'); // deletes are not counted (Antrea counts adds and updates)
    h.synced();

    const value = async (name: string) => (await registry.getSingleMetric(name)!.get()).values;
    expect(await value('antrea_proxy_total_services_updates')).toEqual([
      { value: 3, labels: { ip_family: 'v4' } },
    ]);
    expect(await value('antrea_proxy_total_endpoints_updates')).toEqual([
      { value: 2, labels: { ip_family: 'v4' } },
    ]);
    expect(seen).toHaveLength(11);
    expect(seen.at(-1)).toBe('synced');
  });

  it('every AntreaProxy metric carries ip_family="v4", as Antrea’s constant label', async () => {
    const registry = new Registry();
    const m = new ProxyMetrics(registry);
    m.syncDuration.observe(0.01);
    const metrics = await registry.getMetricsAsJSON();
    expect(metrics.map((x) => x.name).sort()).toEqual([
      'antrea_proxy_sync_proxy_rules_duration_seconds',
      'antrea_proxy_total_endpoints_installed',
      'antrea_proxy_total_endpoints_updates',
      'antrea_proxy_total_services_installed',
      'antrea_proxy_total_services_updates',
    ]);
    for (const metric of metrics) {
      expect(metric.values.length, metric.name).toBeGreaterThan(0);
      for (const v of metric.values) expect(v.labels['ip_family'], metric.name).toBe('v4');
    }
  });
});
