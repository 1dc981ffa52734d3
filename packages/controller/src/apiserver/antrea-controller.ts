import { CONTROLLER_API_PORT, type LogRing, SupportBundleState } from '@antrea-ts/apis';
import {
  ApiServer,
  type ApiServerOptions,
  AuthenticationConfigSource,
  CaBundlePublisher,
  jsonCodec,
  KubeAccessReviewer,
  KubeAPIServiceClient,
  KubeConfigMapClient,
  KubeTokenReviewer,
  ResourceRegistry,
  SelfSignedCertManager,
  serviceDnsNames,
} from '@antrea-ts/apiserver';
import type { KubeConfig, V1Node } from '@kubernetes/client-node';
import { makeInformer } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { type Clock, systemClock } from '../clock.js';
import { EgressController, type EgressInformers } from '../egress/egress-controller.js';
import type { InternalEgressGroup } from '../egress/egress-group.js';
import { registerEgressGroupResource } from '../egress/egress-group-resource.js';
import { KubeEgressWriter, makeEgressInformers } from '../egress/kube-egress-writer.js';
import { InformerAdapter } from '../informers/informer-adapter.js';
import { makePolicyInformers, type PolicyInformers } from '../informers/informers.js';
import { KubeTierClient } from '../kube/tier-client.js';
import { ControllerInfoReporter } from '../monitoring/controller-info.js';
import { ControllerMetrics } from '../monitoring/controller-metrics.js';
import { KubeControllerInfoClient } from '../monitoring/kube-controller-info-client.js';
import { StatusUpdateMetrics } from '../monitoring/status-update-metrics.js';
import { TimedPolicyEngine } from '../monitoring/timed-engine.js';
import type { CidrAllocatorOptions } from '../nodeipam/cidr-allocator.js';
import { KubeNodeClient } from '../nodeipam/kube-node-client.js';
import { NodeIpamController } from '../nodeipam/node-ipam-controller.js';
import { protobufCodec } from '../protobuf-codec.js';
import {
  KubeServiceExternalIPWriter,
  makeServiceExternalIPInformers,
} from '../serviceexternalip/kube-service-external-ip.js';
import {
  ServiceExternalIPController,
  type ServiceExternalIPInformers,
} from '../serviceexternalip/service-external-ip-controller.js';
import { KubeStatusWriter } from '../status/kube-status-writer.js';
import { StatusController } from '../status/status-controller.js';
import { RamStore, type SpannedObject } from '../store/ram-store.js';
import { SupportBundleCollectionController } from '../supportbundle/collection-controller.js';
import { registerCollectionResource } from '../supportbundle/collection-resource.js';
import { controllerBundleCollector } from '../supportbundle/controller-collectors.js';
import { KubeCollectionApi } from '../supportbundle/kube-collection-api.js';
import { registerSupportBundleResource } from '../supportbundle/supportbundle-resource.js';
import { initializeTiers } from '../tier-initializer.js';
import type { InternalAddressGroup, InternalAppliedToGroup, InternalNetworkPolicy } from '../types.js';
import { KubeWebhookConfigurationClient, WebhookCaInjector } from '../webhook/ca-injector.js';
import { webhookEndpoints } from '../webhook/endpoints.js';
import { AdmissionState } from '../webhook/state.js';
import { AdmissionValidator } from '../webhook/validator.js';
import { type ControllerApi, registerControllerApi } from './controller-api.js';
import { StatsAggregator } from './stats-aggregator.js';
import { KubeSecretClient, TlsSecretPersistence } from './tls-secret.js';

/** What antrea-controller runs with (cmd/antrea-controller/options.ts builds and freezes it). */
export interface AntreaControllerConfig {
  version: string;
  bindAddress: string;
  apiPort: number;
  /** Service in front of the API (APIService target, certificate names). */
  service: { name: string; namespace: string; port?: number };
  /** Register the APIServices and publish antrea-ca (off for a controller run outside a cluster). */
  publishCaBundle: boolean;
  /**
   * Keep the self-signed certificates in Secret antrea-controller-tls (in the Pod's Namespace) so
   * that a restart keeps the CA clients trust, as Antrea does. Default: publishCaBundle.
   */
  persistCertificates?: boolean;
  /** Antrea-native policies (ACNP, ANNP, Tier, ClusterGroup, Group) and their status. */
  antreaPolicy: boolean;
  enablePrometheusMetrics: boolean;
  nodeIPAM?: { clusterCIDRs: readonly CidrAllocatorOptions[] };
  podRef?: { name: string; namespace: string };
  nodeName?: string;
  controllerInfoIntervalMs: number;
  /** Extra names and addresses for the serving certificate. */
  certificate?: { dnsNames?: readonly string[]; ipAddresses?: readonly string[] };
  watch?: ApiServerOptions['watch'];
  /**
   * Serve the admission webhooks (/validate/*, /mutate/*) and inject the CA bundle into the
   * webhook configurations labelled app=antrea,served-by=antrea-controller. Default: with
   * antreaPolicy (injection only when publishCaBundle).
   */
  webhooks?: boolean;
  /** Handle SupportBundleCollection CRs (Antrea's Alpha gate, off there by default). Default true. */
  supportBundleCollection?: boolean;
  /** Egress: pool IP allocation and EgressGroups (Antrea's Beta gate, on by default). Default true. */
  egress?: boolean;
  /**
   * AdminNetworkPolicy and BaselineAdminNetworkPolicy (policy.networking.k8s.io/v1alpha1), Antrea's
   * Alpha gate of that name, off by default. Their CRDs must be installed.
   */
  adminNetworkPolicy?: boolean;
  /**
   * ServiceExternalIP: IPs of ExternalIPPools for LoadBalancer Services annotated
   * service.antrea.io/external-ip-pool (Antrea's Beta gate of that name, off by default here).
   */
  serviceExternalIP?: boolean;
}

export interface AntreaControllerDeps {
  logger: Logger;
  kubeConfig: KubeConfig;
  clock?: Clock;
  /** Test doubles; default client-node informers. */
  informers?: PolicyInformers;
  egressInformers?: EgressInformers;
  serviceExternalIPInformers?: ServiceExternalIPInformers;
  metricsRegistry?: Registry;
  /** Support bundle inputs: the process's recent log lines and values known to be secret. */
  supportBundle?: { logs?: LogRing; secrets?: () => Promise<string[]> };
}

/**
 * antrea-controller composed: informers → compute core → RAM stores → watch hubs → HTTPS API
 * server, plus status and stats from agents, NodeIPAM and AntreaControllerInfo. cmd/antrea-controller
 * builds one from flags; integration tests run it in-process against a real kube-apiserver.
 */
export class AntreaController {
  readonly networkPolicies = new RamStore<InternalNetworkPolicy>('NetworkPolicy');
  readonly appliedToGroups = new RamStore<InternalAppliedToGroup>('AppliedToGroup');
  readonly addressGroups = new RamStore<InternalAddressGroup>('AddressGroup');
  readonly egressGroups = new RamStore<InternalEgressGroup>('EgressGroup');
  readonly egress: EgressController | undefined;
  readonly serviceExternalIP: ServiceExternalIPController | undefined;
  readonly #egressHub: { start(): void; stop(): void } | undefined;
  readonly api: ControllerApi;
  /** Per-policy and per-rule traffic the agents report (stats.antrea.io; the dashboard reads it). */
  readonly stats: StatsAggregator;
  readonly server: ApiServer;
  readonly certificates: SelfSignedCertManager;
  readonly metricsRegistry: Registry;
  readonly nodeIpam: NodeIpamController | undefined;
  readonly controllerInfo: ControllerInfoReporter;
  /** system.antrea.io supportbundles/controller. */
  readonly supportBundle: SupportBundleState;
  /** SupportBundleCollection CRs -> agents -> CR status. */
  readonly supportBundleCollections: SupportBundleCollectionController | undefined;
  readonly #collectionHub: { start(): void; stop(): void } | undefined;
  readonly #log: Logger;
  readonly #config: AntreaControllerConfig;
  readonly #engine: TimedPolicyEngine;
  readonly #adapter: InformerAdapter;
  readonly #status: StatusController | undefined;
  readonly #authnConfig: AuthenticationConfigSource;
  readonly #publisher: CaBundlePublisher | undefined;
  readonly #webhookCa: WebhookCaInjector | undefined;
  readonly #tlsSecret: TlsSecretPersistence | undefined;
  #synced = false;
  #started = false;
  #stopping: Promise<void> | undefined;
  #stopped = new AbortController();
  readonly #tiers: KubeTierClient | undefined;
  readonly #logger: Logger;
  /** Settles once the static Tiers exist (or start-up was abandoned). */
  tiersInitialized: Promise<void> = Promise.resolve();

  constructor(config: AntreaControllerConfig, deps: AntreaControllerDeps) {
    const { logger, kubeConfig: kc } = deps;
    const clock = deps.clock ?? systemClock;
    this.#log = logger.child({ component: 'antrea-controller' });
    this.#logger = logger;
    this.#config = config;
    this.#tiers = config.antreaPolicy ? new KubeTierClient(kc) : undefined;
    this.metricsRegistry = deps.metricsRegistry ?? new Registry();
    if (config.enablePrometheusMetrics) collectDefaultMetrics({ register: this.metricsRegistry });

    this.#engine = new TimedPolicyEngine(
      {
        networkPolicies: this.networkPolicies,
        appliedToGroups: this.appliedToGroups,
        addressGroups: this.addressGroups,
      },
      { logger },
    );
    const informers =
      deps.informers ??
      makePolicyInformers(kc, {
        antreaNative: config.antreaPolicy,
        adminNetworkPolicy: config.adminNetworkPolicy ?? false,
      });
    this.#adapter = new InformerAdapter(this.#engine, informers, logger);
    const webhooks = (config.webhooks ?? true) && config.antreaPolicy;
    const admission = webhooks ? new AdmissionState() : undefined;
    admission?.follow(informers);
    const egressInformers =
      (config.egress ?? true)
        ? (deps.egressInformers ??
          makeEgressInformers(kc, { pods: informers.pods, namespaces: informers.namespaces }))
        : undefined;
    if (egressInformers) admission?.followEgress(egressInformers);
    this.#status = config.antreaPolicy
      ? new StatusController(
          this.networkPolicies,
          new StatusUpdateMetrics(this.metricsRegistry).counting(new KubeStatusWriter(kc)),
          clock,
          logger,
        )
      : undefined;

    const counts = () => ({
      networkPolicies: this.networkPolicies.size,
      addressGroups: this.addressGroups.size,
      appliedToGroups: this.appliedToGroups.size,
    });
    this.controllerInfo = new ControllerInfoReporter({
      logger,
      clock,
      client: new KubeControllerInfoClient(kc),
      intervalMs: config.controllerInfoIntervalMs,
      source: {
        version: config.version,
        ...(config.podRef ? { podRef: config.podRef } : {}),
        ...(config.nodeName ? { nodeName: config.nodeName } : {}),
        service: config.service,
        apiPort: config.apiPort,
        counts,
        connectedAgents: () => this.api.connectedNodes().size,
        healthy: () => this.#synced,
      },
    });

    const registry = new ResourceRegistry();
    this.stats = new StatsAggregator(this.networkPolicies, clock);
    let metrics: ControllerMetrics | undefined;
    this.api = registerControllerApi(registry, {
      logger,
      networkPolicies: this.networkPolicies,
      appliedToGroups: this.appliedToGroups,
      addressGroups: this.addressGroups,
      reportStatus: (s) => this.#status?.report(s),
      stats: this.stats,
      controllerInfo: () => ({ ...this.controllerInfo.current(), apiVersion: 'system.antrea.io/v1beta1' }),
      observer: {
        sent: (resource, n) => metrics?.eventsSent.inc({ resource }, n),
        dispatched: (resource, ms) => metrics?.fanoutDuration.observe({ resource }, ms / 1000),
      },
    });
    const sb = deps.supportBundle;
    const items = <T extends SpannedObject>(store: RamStore<T>) => store.list().items.map((v) => v.object);
    this.supportBundle = new SupportBundleState(
      'controller',
      controllerBundleCollector({
        ...(sb?.logs ? { logs: sb.logs } : {}),
        controllerInfo: () => this.controllerInfo.current(),
        config: () => config,
        connectedAgents: () => [...this.api.connectedNodes()],
        networkPolicies: () => items(this.networkPolicies),
        appliedToGroups: () => items(this.appliedToGroups),
        addressGroups: () => items(this.addressGroups),
        secrets: sb?.secrets ?? (async () => []),
        now: () => clock.now(),
      }),
      () => clock.now(),
      (err) => this.#log.warn({ err }, 'support bundle collection failed'),
    );
    registerSupportBundleResource(registry, this.supportBundle);
    if (egressInformers) {
      this.egress = new EgressController({
        informers: egressInformers,
        writer: new KubeEgressWriter(kc),
        groups: this.egressGroups,
        logger,
        clock,
      });
      this.#egressHub = registerEgressGroupResource(registry, this.egressGroups, logger);
    }
    if (config.serviceExternalIP) {
      this.serviceExternalIP = new ServiceExternalIPController({
        informers: deps.serviceExternalIPInformers ?? makeServiceExternalIPInformers(kc),
        writer: new KubeServiceExternalIPWriter(kc),
        logger,
        // With Egress on, the Egress controller writes the pools' usage, Services' IPs included.
        writesPoolUsage: this.egress === undefined,
      });
      if (this.egress) {
        this.serviceExternalIP.followClaims(this.egress);
        this.egress.followClaims(this.serviceExternalIP);
      }
    }
    this.supportBundleCollections =
      (config.supportBundleCollection ?? true)
        ? new SupportBundleCollectionController({
            api: new KubeCollectionApi(kc),
            logger,
            now: () => clock.now(),
          })
        : undefined;
    this.#collectionHub = this.supportBundleCollections
      ? registerCollectionResource(registry, this.supportBundleCollections, logger)
      : undefined;
    metrics = new ControllerMetrics(this.metricsRegistry, {
      counts,
      watchers: () => ({
        networkpolicies: this.api.networkPolicies.watcherCount,
        appliedtogroups: this.api.appliedToGroups.watcherCount,
        addressgroups: this.api.addressGroups.watcherCount,
      }),
      connectedAgents: () => this.api.connectedNodes().size,
      pendingChanges: () => this.#engine.pending,
      queueLengths: () => this.#engine.queueLengths(),
    });
    const m = metrics;
    this.#engine.onFlush = (seconds, stats) => m.recordFlush(seconds, stats);

    const ips = [
      ...(config.bindAddress !== '0.0.0.0' && config.bindAddress !== '::' ? [config.bindAddress] : []),
      ...(config.certificate?.ipAddresses ?? []),
    ];
    this.certificates = new SelfSignedCertManager({
      logger,
      clock: { now: () => clock.now().getTime() },
      host: config.service.name,
      dnsNames: [
        ...serviceDnsNames(config.service.name, config.service.namespace),
        ...(config.certificate?.dnsNames ?? []),
      ],
      ipAddresses: ips,
    });
    const configMaps = new KubeConfigMapClient(kc);
    this.#authnConfig = new AuthenticationConfigSource({ logger, configMaps });
    this.server = new ApiServer({
      logger,
      registry,
      certificates: this.certificates,
      metricsRegistry: this.metricsRegistry,
      tokenReviewer: new KubeTokenReviewer(kc),
      accessReviewer: new KubeAccessReviewer(kc),
      authenticationConfig: this.#authnConfig,
      // JSON first: a client that states no preference (curl, kubectl) gets JSON, like from
      // kube-apiserver; agents ask for protobuf explicitly.
      codecs: [jsonCodec, protobufCodec],
      host: config.bindAddress,
      port: config.apiPort,
      ...(config.watch ? { watch: config.watch } : {}),
      ...(admission
        ? {
            endpoints: webhookEndpoints(
              new AdmissionValidator(admission, {
                controllerServiceAccount: {
                  namespace: config.podRef?.namespace ?? config.service.namespace,
                  name: 'antrea-controller',
                },
              }),
            ),
          }
        : {}),
    });
    this.server.readyz.add('networkpolicy-store-synced', () => this.#synced);
    this.#publisher = config.publishCaBundle
      ? new CaBundlePublisher({
          logger,
          configMaps,
          apiServices: new KubeAPIServiceClient(kc),
          service: config.service,
        })
      : undefined;
    this.#tlsSecret =
      (config.persistCertificates ?? config.publishCaBundle)
        ? new TlsSecretPersistence({
            logger,
            secrets: new KubeSecretClient(kc),
            certificates: this.certificates,
            namespace: config.podRef?.namespace ?? config.service.namespace,
          })
        : undefined;
    this.#webhookCa =
      admission && config.publishCaBundle
        ? new WebhookCaInjector({ logger, client: new KubeWebhookConfigurationClient(kc) })
        : undefined;
    const nodes = new KubeNodeClient(kc);
    this.nodeIpam = config.nodeIPAM
      ? new NodeIpamController({
          logger,
          nodes,
          informer: makeInformer<V1Node>(kc, '/api/v1/nodes', () => nodes.listRaw()),
          clusterCIDRs: config.nodeIPAM.clusterCIDRs,
        })
      : undefined;
  }

  /** True once the first computation over every informer's list finished. */
  get synced(): boolean {
    return this.#synced;
  }

  /**
   * Computes the initial state, then serves it: agents that connect get a complete state, never a
   * partial one (they retry until the port answers).
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#stopping = undefined;
    this.#stopped = new AbortController();
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    this.api.start();
    await this.#adapter.start();
    // stop() may have run meanwhile (SIGTERM during start-up): start nothing more.
    if (!this.#started) return;
    this.#synced = true;
    this.#log.info(this.#engine.counts(), 'initial policy computation done');
    this.#egressHub?.start();
    await this.egress?.start();
    await this.serviceExternalIP?.start();
    if (!this.#started) return;
    this.#status?.start();
    if (this.#tiers) {
      // Antrea's initialize-tiers post-start hook: in the background, retried until it works.
      const signal = this.#stopped.signal;
      this.tiersInitialized = initializeTiers(this.#tiers, this.#logger, { signal }).catch((err: unknown) => {
        if (!signal.aborted) this.#log.error({ err }, 'initializing static Tiers failed');
      });
    }
    await this.#authnConfig.start();
    if (!this.#started) return;
    // The previous run's certificates (if any) before serving: clients keep trusting the CA.
    await this.#tlsSecret?.start();
    if (!this.#started) return;
    await this.server.start();
    if (!this.#started) {
      await this.server.stop();
      return;
    }
    this.certificates.start();
    // The publisher retries until it succeeds (e.g. RBAC not there yet); stop() must still be
    // able to end a start() that waits for it.
    if (this.#publisher) await this.#untilStopped(this.#publisher.start(this.certificates));
    if (!this.#started) return;
    if (this.#webhookCa) await this.#untilStopped(this.#webhookCa.start(this.certificates));
    if (!this.#started) return;
    await this.nodeIpam?.start();
    if (!this.#started) {
      await this.nodeIpam?.stop();
      return;
    }
    this.#collectionHub?.start();
    this.supportBundleCollections?.start();
    this.controllerInfo.start();
    this.#log.info(
      { address: this.server.address, version: this.#config.version },
      'antrea-controller started',
    );
  }

  /** Idempotent; open watches end cleanly so agents reconnect to the next instance. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  #untilStopped(p: Promise<void>): Promise<void> {
    return Promise.race([
      p,
      new Promise<void>((resolve) => {
        if (this.#stopped.signal.aborted) resolve();
        else this.#stopped.signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
  }

  async #stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    this.#stopped.abort();
    await this.controllerInfo.stop();
    await this.supportBundleCollections?.stop();
    this.#collectionHub?.stop();
    await this.nodeIpam?.stop();
    this.#publisher?.stop();
    this.#webhookCa?.stop();
    this.#tlsSecret?.stop();
    await this.server.stop();
    this.api.stop();
    await this.serviceExternalIP?.stop();
    await this.egress?.stop();
    this.#egressHub?.stop();
    this.#status?.stop();
    await this.#adapter.stop();
    this.certificates.stop();
    this.#authnConfig.stop();
    this.#synced = false;
    this.#log.info('antrea-controller stopped');
  }
}

export const DEFAULT_API_PORT = CONTROLLER_API_PORT;
