import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The agent's Prometheus metrics, on a registry of its own (no global state). */
export class AgentMetrics {
  readonly registry = new Registry();
  readonly cniDuration = new Histogram({
    name: 'antrea_agent_cni_request_duration_seconds',
    help: 'Duration of CNI commands handled by the agent',
    labelNames: ['command', 'result'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
    registers: [this.registry],
  });
  readonly localPods = new Gauge({
    name: 'antrea_agent_local_pod_count',
    help: 'Number of Pods on this Node attached to br-int',
    registers: [this.registry],
  });
  readonly flows = new Gauge({
    name: 'antrea_agent_ovs_total_flow_count',
    help: 'Flows the agent installed on br-int',
    registers: [this.registry],
  });
  readonly ofReconnects = new Counter({
    name: 'antrea_agent_ofconnection_reconnections_total',
    help: 'OpenFlow reconnections to ovs-vswitchd (each followed by a flow replay)',
    registers: [this.registry],
  });
}
