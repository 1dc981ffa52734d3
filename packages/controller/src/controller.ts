import type { NetworkPolicyStatus } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import { type Clock, systemClock } from './clock.js';
import { type EngineCounts, PolicyEngine } from './compute/engine.js';
import { InformerAdapter } from './informers/informer-adapter.js';
import type { PolicyInformers } from './informers/informers.js';
import { StatusController, type StatusWriter } from './status/status-controller.js';
import { RamStore, type Store } from './store/ram-store.js';
import { initializeTiers, type TierClient } from './tier-initializer.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from './types.js';

export interface NetworkPolicyControllerOptions {
  informers: PolicyInformers;
  logger: Logger;
  clock?: Clock;
  /** Without it, Antrea-native policy status is not written. */
  statusWriter?: StatusWriter;
  /** With it, the static Tiers are created (or their priorities restored) after start. */
  tierClient?: TierClient;
}

/**
 * antrea-controller's policy side, composed: informers → compute core → RAM stores (served by the
 * API server), plus status aggregation. Construct with real informers in cmd/, doubles in tests.
 */
export class NetworkPolicyController {
  readonly networkPolicies: Store<InternalNetworkPolicy>;
  readonly appliedToGroups: Store<InternalAppliedToGroup>;
  readonly addressGroups: Store<InternalAddressGroup>;
  private readonly engine: PolicyEngine;
  private readonly adapter: InformerAdapter;
  private readonly status: StatusController | undefined;
  private readonly log: Logger;
  private synced = false;
  private readonly tierClient: TierClient | undefined;
  private readonly logger: Logger;
  /** Settles once the static Tiers exist (immediately without a tierClient). */
  tiersInitialized: Promise<void> = Promise.resolve();

  constructor(opts: NetworkPolicyControllerOptions) {
    this.log = opts.logger.child({ component: 'networkpolicy-controller' });
    this.logger = opts.logger;
    this.tierClient = opts.tierClient;
    const nps = new RamStore<InternalNetworkPolicy>('NetworkPolicy', opts.logger);
    const atgs = new RamStore<InternalAppliedToGroup>('AppliedToGroup', opts.logger);
    const ags = new RamStore<InternalAddressGroup>('AddressGroup', opts.logger);
    this.networkPolicies = nps;
    this.appliedToGroups = atgs;
    this.addressGroups = ags;
    this.engine = new PolicyEngine(
      { networkPolicies: nps, appliedToGroups: atgs, addressGroups: ags },
      { logger: opts.logger },
    );
    this.adapter = new InformerAdapter(this.engine, opts.informers, opts.logger);
    this.status = opts.statusWriter
      ? new StatusController(nps, opts.statusWriter, opts.clock ?? systemClock, opts.logger)
      : undefined;
  }

  /** True once every informer listed and the first computation finished. */
  get hasSynced(): boolean {
    return this.synced;
  }

  counts(): EngineCounts {
    return this.engine.counts();
  }

  /** Effective members of a ClusterGroup (`name`) or Group (`namespace/name`). */
  groupMembers(key: string): ReturnType<PolicyEngine['groupMembers']> {
    return this.engine.groupMembers(key);
  }

  /** ClusterGroups/Groups that contain the Pod (groupassociations). */
  groupsForPod(namespace: string, name: string): string[] {
    return this.engine.groupsForPod(namespace, name);
  }

  /** Realization report from an agent (POST networkpolicies/{name}/status). */
  reportStatus(status: NetworkPolicyStatus): void {
    this.status?.report(status);
  }

  async start(signal?: AbortSignal): Promise<void> {
    await this.adapter.start(signal);
    this.synced = true;
    // Like Antrea's initialize-tiers post-start hook: in the background, retried until it works
    // (Tier creation goes through the validating webhook, which may not be reachable yet).
    if (this.tierClient)
      this.tiersInitialized = initializeTiers(this.tierClient, this.logger, signal ? { signal } : {}).catch(
        (err: unknown) => {
          if (!signal?.aborted) this.log.error({ err }, 'initializing static Tiers failed');
        },
      );
    this.status?.start(signal);
    this.log.info(this.engine.counts(), 'initial policy computation done');
  }

  async stop(): Promise<void> {
    this.status?.stop();
    await this.adapter.stop();
  }
}
