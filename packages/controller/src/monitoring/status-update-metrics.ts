import { Counter, type Registry } from 'prom-client';
import type { StatusWriter } from '../status/status-controller.js';

/**
 * Antrea's status update counters: how many times the controller wrote the status of an Antrea
 * ClusterNetworkPolicy or NetworkPolicy (successful writes only, as Antrea counts them).
 */
export class StatusUpdateMetrics {
  private readonly acnp: Counter;
  private readonly annp: Counter;

  constructor(registry: Registry) {
    this.acnp = new Counter({
      name: 'antrea_controller_acnp_status_updates',
      help: 'The total number of actual status updates performed for Antrea ClusterNetworkPolicy Custom Resources',
      registers: [registry],
    });
    this.annp = new Counter({
      name: 'antrea_controller_annp_status_updates',
      help: 'The total number of actual status updates performed for Antrea NetworkPolicy Custom Resources',
      registers: [registry],
    });
  }

  /** The writer with each successful write counted. */
  counting(writer: StatusWriter): StatusWriter {
    return {
      updateClusterNetworkPolicyStatus: async (name, status) => {
        await writer.updateClusterNetworkPolicyStatus(name, status);
        this.acnp.inc();
      },
      updateAntreaNetworkPolicyStatus: async (namespace, name, status) => {
        await writer.updateAntreaNetworkPolicyStatus(namespace, name, status);
        this.annp.inc();
      },
    };
  }
}
