import type { NetworkPolicyNodeStatus, NetworkPolicyStatus } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { CrdNetworkPolicyStatus } from '../inputs.js';
import type { Store } from '../store/ram-store.js';
import type { InternalNetworkPolicy } from '../types.js';
import { computePolicyStatus, sameStatus } from './policy-status.js';

/** Writes policy status to the API server (the k8s client layer implements it). */
export interface StatusWriter {
  updateClusterNetworkPolicyStatus(name: string, status: CrdNetworkPolicyStatus): Promise<void>;
  updateAntreaNetworkPolicyStatus(
    namespace: string,
    name: string,
    status: CrdNetworkPolicyStatus,
  ): Promise<void>;
}

/**
 * Aggregates agents' realization reports into ClusterNetworkPolicy / Antrea NetworkPolicy status.
 * Agents feed it through `report()` (the controlplane API's networkpolicies/{name}/status);
 * internal policy changes arrive from the NetworkPolicy store. `sync()` computes and writes every
 * status that may have changed; `start()` runs it whenever something changed.
 */
export class StatusController {
  private readonly log: Logger;
  private readonly reports = new Map<string, Map<string, NetworkPolicyNodeStatus>>();
  private readonly written = new Map<string, CrdNetworkPolicyStatus>();
  private readonly dirty = new Set<string>();
  private unsubscribe: (() => void) | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly policies: Store<InternalNetworkPolicy>,
    private readonly writer: StatusWriter,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'status-controller' });
  }

  /** Records one agent report (replaces that Node's previous report for the policy). */
  report(status: NetworkPolicyStatus): void {
    const name = status.metadata.name;
    let byNode = this.reports.get(name);
    if (!byNode) {
      byNode = new Map();
      this.reports.set(name, byNode);
    }
    for (const n of status.nodes ?? []) byNode.set(n.nodeName, n);
    this.markDirty(name);
  }

  private markDirty(name: string): void {
    this.dirty.add(name);
    this.wake?.();
  }

  /** Computes and writes the status of every policy marked dirty; returns how many were written. */
  async sync(): Promise<number> {
    const names = [...this.dirty];
    this.dirty.clear();
    let writes = 0;
    for (const name of names) {
      const np = this.policies.get(name)?.object;
      if (!np) {
        this.reports.delete(name);
        this.written.delete(name);
        continue;
      }
      const ref = np.sourceRef;
      if (ref.type !== 'AntreaClusterNetworkPolicy' && ref.type !== 'AntreaNetworkPolicy') continue;
      const byNode = this.reports.get(name);
      const { status, staleNodes } = computePolicyStatus(np, byNode?.values() ?? [], this.clock.now());
      for (const n of staleNodes) byNode?.delete(n);
      if (sameStatus(this.written.get(name), status)) continue;
      try {
        if (ref.type === 'AntreaClusterNetworkPolicy')
          await this.writer.updateClusterNetworkPolicyStatus(ref.name, status);
        else await this.writer.updateAntreaNetworkPolicyStatus(ref.namespace ?? '', ref.name, status);
        this.written.set(name, status);
        writes++;
      } catch (err) {
        this.log.warn(
          { err, policy: `${ref.namespace ?? ''}/${ref.name}` },
          'updating policy status failed; will retry',
        );
        this.dirty.add(name);
      }
    }
    return writes;
  }

  /** Follows the NetworkPolicy store and syncs after changes until the signal aborts. */
  start(signal?: AbortSignal): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.policies.subscribe((e) => this.markDirty(e.object.name));
    for (const { object } of this.policies.list().items) this.dirty.add(object.name);
    let running = false;
    const run = () => {
      if (running || this.dirty.size === 0 || !this.unsubscribe) return;
      running = true;
      // Coalesce a burst of changes into one pass.
      setTimeout(() => {
        this.sync()
          .catch((err: unknown) => this.log.error({ err }, 'status sync failed'))
          .finally(() => {
            running = false;
            if (this.dirty.size > 0) setTimeout(run, 1000);
          });
      }, 0);
    };
    this.wake = run;
    signal?.addEventListener('abort', () => this.stop(), { once: true });
    run();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wake = undefined;
  }
}
