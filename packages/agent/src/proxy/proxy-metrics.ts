import { Gauge, Histogram, type Registry } from 'prom-client';

/** AntreaProxy's metrics under Antrea's names (pkg/agent/proxy/metrics). */
export class ProxyMetrics {
  readonly servicesInstalled: Gauge;
  readonly endpointsInstalled: Gauge;
  readonly syncDuration: Histogram;

  constructor(registry: Registry) {
    this.servicesInstalled = new Gauge({
      name: 'antrea_proxy_total_services_installed',
      help: 'Service ports installed by AntreaProxy',
      registers: [registry],
    });
    this.endpointsInstalled = new Gauge({
      name: 'antrea_proxy_total_endpoints_installed',
      help: 'Endpoints installed by AntreaProxy, summed over service ports',
      registers: [registry],
    });
    this.syncDuration = new Histogram({
      name: 'antrea_proxy_sync_proxy_rules_duration_seconds',
      help: 'Duration of one AntreaProxy sync (model, flows and groups)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    });
  }
}
