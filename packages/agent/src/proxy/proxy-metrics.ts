import { isIPv4 } from 'node:net';
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { serviceKey } from './model.js';
import type { ServiceHandlers, ServiceSource } from './service-source.js';

/** A Service AntreaProxy (IPv4) serves: one with an IPv4 cluster IP (not headless). */
const hasIpv4ClusterIp = (svc: V1Service): boolean =>
  [svc.spec?.clusterIP, ...(svc.spec?.clusterIPs ?? [])].some((ip) => ip !== undefined && isIPv4(ip));

/** AntreaProxy's metrics under Antrea's names (pkg/agent/proxy/metrics). */
export class ProxyMetrics {
  // Antrea's five metrics all carry the constant label ip_family (v4 here: AntreaProxy is IPv4
  // only), so dashboards that select or sum by it find ours; the first three are bound to it.
  readonly servicesInstalled: { set(value: number): void };
  readonly endpointsInstalled: { set(value: number): void };
  readonly syncDuration: { observe(value: number): void };
  readonly servicesUpdates: Counter<'ip_family'>;
  readonly endpointsUpdates: Counter<'ip_family'>;

  constructor(registry: Registry) {
    const v4 = { ip_family: 'v4' };
    this.servicesInstalled = new Gauge({
      name: 'antrea_proxy_total_services_installed',
      help: 'Service ports installed by AntreaProxy',
      labelNames: ['ip_family'],
      registers: [registry],
    }).labels(v4);
    this.endpointsInstalled = new Gauge({
      name: 'antrea_proxy_total_endpoints_installed',
      help: 'Endpoints installed by AntreaProxy, summed over service ports',
      labelNames: ['ip_family'],
      registers: [registry],
    }).labels(v4);
    this.syncDuration = new Histogram({
      name: 'antrea_proxy_sync_proxy_rules_duration_seconds',
      help: 'Duration of one AntreaProxy sync (model, flows and groups)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      labelNames: ['ip_family'],
      registers: [registry],
    }).labels(v4);
    this.servicesUpdates = new Counter({
      name: 'antrea_proxy_total_services_updates',
      help: 'The cumulative number of Service updates received by Antrea Proxy',
      labelNames: ['ip_family'],
      registers: [registry],
    });
    this.endpointsUpdates = new Counter({
      name: 'antrea_proxy_total_endpoints_updates',
      help: 'The cumulative number of Endpoint updates received by Antrea Proxy',
      labelNames: ['ip_family'],
      registers: [registry],
    });
    this.servicesInstalled.set(0);
    this.endpointsInstalled.set(0);
    this.servicesUpdates.inc(v4, 0);
    this.endpointsUpdates.inc(v4, 0);
  }

  /**
   * The source with its events counted as Antrea counts them: every add, update and delete of a
   * Service with an IPv4 cluster IP, every add and update of an IPv4 EndpointSlice (not deletes).
   */
  countUpdates(source: ServiceSource): ServiceSource {
    const v4 = { ip_family: 'v4' };
    const ipv4Services = new Set<string>();
    return {
      start: (h: ServiceHandlers) =>
        source.start({
          upsertService: (svc: V1Service) => {
            const key = serviceKey(svc.metadata?.namespace, svc.metadata?.name);
            if (hasIpv4ClusterIp(svc)) {
              ipv4Services.add(key);
              this.servicesUpdates.inc(v4);
            } else ipv4Services.delete(key);
            h.upsertService(svc);
          },
          removeService: (key: string) => {
            if (ipv4Services.delete(key)) this.servicesUpdates.inc(v4);
            h.removeService(key);
          },
          upsertSlice: (slice: V1EndpointSlice) => {
            if (slice.addressType === 'IPv4') this.endpointsUpdates.inc(v4);
            h.upsertSlice(slice);
          },
          removeSlice: (key: string) => h.removeSlice(key),
          synced: () => h.synced(),
        }),
      stop: () => source.stop(),
    };
  }
}
