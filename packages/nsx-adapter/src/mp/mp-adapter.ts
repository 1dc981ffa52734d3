import type {
  AntreaAgentInfo,
  AntreaControllerInfo,
  SupportBundleCollection,
  SupportBundleCollectionStatus,
  TraceflowStatus,
} from '@antrea-ts/apis';
import { ANTREA_CONTROLLER_INFO_NAME, tarGz } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import { Backoff, type Clock, systemClock } from '../clock.js';
import { AdapterError, NsxRequestError } from '../errors.js';
import type { ComponentCondition, ComponentHealth } from '../health.js';
import type { CrdClient } from '../k8s/kube-crd-client.js';
import type { InventorySource } from '../k8s/kube-inventory-source.js';
import type { KubeObject, ManagedCrdStore } from '../k8s/types.js';
import type { MpChannel, SupportBundleRequest } from '../nsx/channels.js';
import { clusterInfo } from './cluster-health.js';
import { InventoryReporter } from './inventory-reporter.js';
import { nsxRuleStatistics, type StatsSource } from './statistics.js';
import { traceflowFromNsx, traceflowResultToNsx, type UidLookup } from './traceflow-translate.js';

export interface MpAdapterOptions {
  channel: MpChannel;
  inventory: InventorySource;
  crds: CrdClient;
  logger: Logger;
  clusterName: string;
  /** PEM certificate to register the cluster with when NSX does not know it yet. */
  registerCertificate?: string;
  /** The CCP adapter's health, reported in the heartbeat. */
  ccpHealth?: () => ComponentHealth;
  /** Managed ACNPs (the CCP adapter's store) so statistics only cover NSX policies. */
  managedPolicies?: Pick<ManagedCrdStore, 'list'>;
  stats?: StatsSource;
  clock?: Clock;
  /** Overrides NSX's heartbeat-config report_interval (tests). */
  heartbeatIntervalMs?: number;
  statsIntervalMs?: number;
  troubleshootPollMs?: number;
  inventoryBatchSize?: number;
  inventoryBatchPeriodMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /**
   * Where Antrea agents and the controller upload their bundles. A SupportBundleCollection needs a
   * file server; without one only the adapter's own archive is produced.
   */
  bundleFileServer?: BundleFileServerConfig;
  /** How long to wait for a SupportBundleCollection before uploading the adapter archive (ms). */
  bundleWaitMs?: number;
}

export interface BundleFileServerConfig {
  /** sftp://host[:port]/path */
  url: string;
  authType: 'BearerToken' | 'APIKey' | 'BasicAuthentication';
  authSecret: { name: string; namespace: string };
}

/**
 * The MP adapter: inventory, health heartbeats, statistics and troubleshooting (Traceflow, support
 * bundles) between the cluster and NSX Manager. Each duty is its own loop so one failing does not
 * stall the others; all stop with the adapter.
 */
export class MpAdapter {
  private readonly log: Logger;
  private readonly clock: Clock;
  private abort: AbortController | undefined;
  private loops: Promise<void>[] = [];
  private stopping: Promise<void> | undefined;
  private reporter: InventoryReporter | undefined;
  private nsxCondition: ComponentCondition;
  private readonly activeTraceflows = new Set<string>();
  private readonly activeBundles = new Set<string>();
  clusterUuid: string | undefined;
  heartbeats = 0;

  constructor(private readonly opts: MpAdapterOptions) {
    this.log = opts.logger.child({ component: 'mp-adapter' });
    this.clock = opts.clock ?? systemClock;
    this.nsxCondition = {
      type: 'NSXConnectionUp',
      status: 'UNKNOWN',
      reason: 'Starting',
      last_transition_time: this.clock.now(),
    };
  }

  /** Starts every loop; the cluster lookup/registration runs in the background until NSX answers. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.abort) return;
    this.abort = new AbortController();
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    const s = this.abort.signal;
    this.loops.push(
      (async () => {
        const uuid = await this.resolveCluster(s);
        if (!uuid || s.aborted) return;
        this.clusterUuid = uuid;
        this.reporter = new InventoryReporter({
          channel: this.opts.channel,
          source: this.opts.inventory,
          logger: this.opts.logger,
          clusterName: this.opts.clusterName,
          clusterUuid: uuid,
          clock: this.clock,
          ...(this.opts.inventoryBatchSize ? { batchSize: this.opts.inventoryBatchSize } : {}),
          ...(this.opts.inventoryBatchPeriodMs !== undefined
            ? { batchPeriodMs: this.opts.inventoryBatchPeriodMs }
            : {}),
          ...(this.opts.backoffInitialMs ? { backoffInitialMs: this.opts.backoffInitialMs } : {}),
          ...(this.opts.backoffMaxMs ? { backoffMaxMs: this.opts.backoffMaxMs } : {}),
        });
        await this.reporter.start(s);
        await Promise.all([this.heartbeatLoop(s), this.statsLoop(s), this.troubleshootLoop(s)]);
      })(),
    );
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.abort?.abort();
      await Promise.all(this.loops.map((l) => l.catch(() => undefined)));
      await this.reporter?.stop();
      this.log.info('MP adapter stopped');
    })();
    return this.stopping;
  }

  health(): ComponentHealth {
    const inv = this.reporter?.health ?? {
      type: 'InventorySynced',
      status: 'UNKNOWN' as const,
      reason: 'Starting',
    };
    const conditions = [this.nsxCondition, inv];
    const bad = conditions.some((c) => c.status === 'FALSE');
    const unknown = conditions.some((c) => c.status === 'UNKNOWN');
    return {
      status: bad ? 'DEGRADED' : unknown ? 'UNKNOWN' : 'UP',
      conditions: conditions.map((c) => ({ ...c })),
    };
  }

  /** The inventory reporter once the cluster is known (tests, benchmarks). */
  get inventoryReporter(): InventoryReporter | undefined {
    return this.reporter;
  }

  /** Ends the heartbeat loop's wait early (set while it waits). */
  private wakeHeartbeat: (() => void) | undefined;

  private nsxOk(ok: boolean, err?: unknown): void {
    const status = ok ? 'TRUE' : 'FALSE';
    const changed = this.nsxCondition.status !== status;
    this.nsxCondition = {
      type: 'NSXConnectionUp',
      status,
      reason: ok ? 'Connected' : AdapterError.is(err) ? err.code : 'Error',
      ...(err ? { message: err instanceof Error ? err.message : String(err) } : {}),
      last_transition_time: changed
        ? this.clock.now()
        : (this.nsxCondition.last_transition_time ?? this.clock.now()),
    };
  }

  private async resolveCluster(signal: AbortSignal): Promise<string | undefined> {
    const backoff = new Backoff(this.opts.backoffInitialMs ?? 500, this.opts.backoffMaxMs ?? 30_000);
    while (!signal.aborted) {
      try {
        let ccp: { node_id: string };
        try {
          ccp = await this.opts.channel.getClusterControlPlane();
        } catch (err) {
          if (
            !(err instanceof NsxRequestError) ||
            err.code !== 'NSX_NOT_FOUND' ||
            !this.opts.registerCertificate
          )
            throw err;
          this.log.info({ cluster: this.opts.clusterName }, 'cluster not registered in NSX; registering');
          ccp = await this.opts.channel.registerCluster(this.opts.registerCertificate);
        }
        this.nsxOk(true);
        this.log.info(
          { cluster: this.opts.clusterName, clusterUuid: ccp.node_id },
          'cluster identity resolved',
        );
        return ccp.node_id;
      } catch (err) {
        this.nsxOk(false, err);
        const delay = backoff.next();
        this.log.warn(
          { err: err instanceof Error ? err.message : String(err), retryInMs: delay },
          'cannot read the cluster from NSX',
        );
        await this.clock.sleep(delay, signal);
      }
    }
    return undefined;
  }

  /** One heartbeat: AntreaClusterInfo from the monitoring CRs and the adapters' health. */
  async heartbeat(): Promise<void> {
    let controller: AntreaControllerInfo | undefined;
    let agents: AntreaAgentInfo[] = [];
    try {
      controller = (await this.opts.crds.get('AntreaControllerInfo', ANTREA_CONTROLLER_INFO_NAME)) as
        | AntreaControllerInfo
        | undefined;
      agents = (await this.opts.crds.list('AntreaAgentInfo')) as unknown as AntreaAgentInfo[];
    } catch (err) {
      this.log.warn({ err: String(err) }, 'cannot read Antrea monitoring CRs');
    }
    const ccp: ComponentHealth = this.opts.ccpHealth?.() ?? { status: 'UNKNOWN', conditions: [] };
    // Report ourselves as NSX will see us once this call succeeds.
    const mp = this.health();
    if (this.nsxCondition.status !== 'TRUE')
      mp.status = mp.conditions.some((c) => c.type !== 'NSXConnectionUp' && c.status === 'FALSE')
        ? 'DEGRADED'
        : 'UP';
    await this.opts.channel.reportStatus(clusterInfo(controller, agents, mp, ccp, this.clock.now()));
    this.heartbeats += 1;
  }

  private async heartbeatLoop(signal: AbortSignal): Promise<void> {
    // Failed heartbeats are retried with backoff rather than a whole interval later, so NSX sees the
    // cluster again within seconds of coming back.
    const backoff = new Backoff(this.opts.backoffInitialMs ?? 500, this.opts.backoffMaxMs ?? 30_000);
    let intervalMs = this.opts.heartbeatIntervalMs ?? 60_000;
    while (!signal.aborted) {
      let sleepMs: number;
      try {
        if (this.opts.heartbeatIntervalMs === undefined)
          intervalMs = (await this.opts.channel.getHeartbeatIntervalSeconds()) * 1000;
        await this.heartbeat();
        this.nsxOk(true);
        backoff.reset();
        sleepMs = intervalMs;
      } catch (err) {
        if (signal.aborted) return;
        // Warn once per outage; the retries log at debug.
        const firstFailure = this.nsxCondition.status !== 'FALSE';
        this.nsxOk(false, err);
        sleepMs = Math.min(intervalMs, backoff.next());
        this.log[firstFailure ? 'warn' : 'debug'](
          { err: err instanceof Error ? err.message : String(err), retryInMs: sleepMs },
          'heartbeat failed',
        );
      }
      const wake = new AbortController();
      this.wakeHeartbeat = () => wake.abort();
      await this.clock.sleep(sleepMs, AbortSignal.any([signal, wake.signal]));
      this.wakeHeartbeat = undefined;
    }
  }

  /** Pushes rule statistics of NSX-managed ACNPs once. */
  async reportStatistics(): Promise<number> {
    if (!this.opts.stats) return 0;
    const stats = await this.opts.stats.clusterNetworkPolicyStats();
    const managed = new Map<string, KubeObject>(
      (this.opts.managedPolicies?.list('ClusterNetworkPolicy') ?? []).map((o) => [o.metadata?.name ?? '', o]),
    );
    const report = nsxRuleStatistics(stats, managed);
    await this.opts.channel.reportStatistics(report);
    return report.length;
  }

  private async statsLoop(signal: AbortSignal): Promise<void> {
    if (!this.opts.stats) return;
    while (!signal.aborted) {
      try {
        await this.reportStatistics();
      } catch (err) {
        if (signal.aborted) return;
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'statistics report failed');
      }
      await this.clock.sleep(this.opts.statsIntervalMs ?? 60_000, signal);
    }
  }

  private lookup(): UidLookup {
    const find = (kind: 'Pod' | 'Service', uid: string) => {
      const o = this.opts.inventory.list(kind).find((x) => x.metadata?.uid === uid);
      return o ? { namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' } : undefined;
    };
    return {
      pod: (uid) => find('Pod', uid),
      service: (uid) => find('Service', uid),
      nodeUid: (name) =>
        this.opts.inventory.list('Node').find((n) => n.metadata?.name === name)?.metadata?.uid,
    };
  }

  /**
   * Polls NSX for troubleshooting work every couple of seconds, and so also notices an NSX outage (and
   * its end) long before the next heartbeat would.
   */
  private async troubleshootLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        for (const tf of await this.opts.channel.listTraceflows('PENDING')) {
          if (this.activeTraceflows.has(tf.config.id)) continue;
          this.activeTraceflows.add(tf.config.id);
          void this.runTraceflow(tf.config, signal).finally(() => this.activeTraceflows.delete(tf.config.id));
        }
        for (const b of await this.opts.channel.listSupportBundleRequests('PENDING')) {
          if (this.activeBundles.has(b.request_id)) continue;
          this.activeBundles.add(b.request_id);
          void this.runSupportBundle(b, signal).finally(() => this.activeBundles.delete(b.request_id));
        }
        if (this.nsxCondition.reason === 'NSX_UNREACHABLE') {
          this.nsxOk(true);
          // Tell NSX now rather than at the next interval (60 s or more) that the cluster is back.
          this.wakeHeartbeat?.();
        }
      } catch (err) {
        if (signal.aborted) return;
        if (AdapterError.is(err) && err.code === 'NSX_UNREACHABLE') this.nsxOk(false, err);
        this.log.debug(
          { err: err instanceof Error ? err.message : String(err) },
          'troubleshooting poll failed',
        );
      }
      await this.clock.sleep(this.opts.troubleshootPollMs ?? 2000, signal);
    }
  }

  /** NSX traceflow -> Traceflow CR -> wait for its result -> NSX observations; the CR is removed after. */
  private async runTraceflow(
    config: Record<string, unknown> & { id: string },
    signal: AbortSignal,
  ): Promise<void> {
    const log = this.log.child({ traceflow: config.id });
    const { channel, crds } = this.opts;
    try {
      await channel.startTraceflow(config.id);
    } catch (err) {
      log.warn({ err: String(err) }, 'cannot claim traceflow');
      return;
    }
    let name: string | undefined;
    try {
      const lookup = this.lookup();
      const cr = traceflowFromNsx(config, lookup);
      name = cr.metadata.name as string;
      await crds.delete('Traceflow', name); // a leftover from an earlier run of the same id
      await crds.create('Traceflow', cr as unknown as KubeObject);
      const deadline = this.clock.now() + ((cr.spec.timeout ?? 20) + 10) * 1000;
      let status: TraceflowStatus | undefined;
      while (!signal.aborted && this.clock.now() < deadline) {
        status = (await crds.get('Traceflow', name))?.status as TraceflowStatus | undefined;
        if (status?.phase === 'Succeeded' || status?.phase === 'Failed') break;
        await this.clock.sleep(500, signal);
      }
      if (signal.aborted) return;
      const result =
        status?.phase === 'Succeeded' || status?.phase === 'Failed'
          ? traceflowResultToNsx(status, lookup)
          : { phase: 'FAILED', reason: 'Traceflow did not finish in time', observations: [] };
      await channel.reportTraceflow(config.id, result);
      log.info({ phase: result['phase'] }, 'traceflow done');
    } catch (err) {
      log.warn({ err: String(err) }, 'traceflow failed');
      await channel
        .reportTraceflow(config.id, {
          phase: 'FAILED',
          reason: err instanceof Error ? err.message : String(err),
          observations: [],
        })
        .catch(() => undefined);
    } finally {
      if (name) await crds.delete('Traceflow', name).catch(() => undefined);
    }
  }

  /**
   * Asks Antrea for agent/controller bundles with a SupportBundleCollection when a file server is
   * configured (NSX itself offers none), waits for it up to `bundleWaitMs`, and returns what to put
   * in the manifest. Best effort: failures are recorded, not thrown.
   */
  private async collectAntreaBundles(
    req: SupportBundleRequest,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const server = this.opts.bundleFileServer;
    if (!server) return { collected: false, reason: 'no file server configured for SupportBundleCollection' };
    const name = `nsx-${req.request_id}`
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .slice(0, 253);
    const nodes = req.nodes && req.nodes.length > 0 ? { nodeNames: req.nodes } : {};
    const sbc: SupportBundleCollection = {
      apiVersion: 'crd.antrea.io/v1alpha1',
      kind: 'SupportBundleCollection',
      metadata: { name, labels: { 'ccp-adapter.antrea.tanzu.vmware.com/managedBy': 'mp-adapter' } },
      spec: {
        nodes,
        expirationMinutes: 60,
        ...(req.log_age_limit ? { sinceTime: `${req.log_age_limit * 24}h` } : {}),
        fileServer: { url: server.url },
        authentication: { authType: server.authType, authSecret: server.authSecret },
      },
    };
    try {
      await this.opts.crds.create('SupportBundleCollection', sbc as unknown as KubeObject);
      const deadline = this.clock.now() + (this.opts.bundleWaitMs ?? 120_000);
      let status: SupportBundleCollectionStatus | undefined;
      while (!signal.aborted && this.clock.now() < deadline) {
        status = (await this.opts.crds.get('SupportBundleCollection', name))?.status as
          | SupportBundleCollectionStatus
          | undefined;
        const done = status?.conditions?.some(
          (c) => (c.type === 'Completed' || c.type === 'CollectionFailure') && c.status === 'True',
        );
        if (done) break;
        await this.clock.sleep(1000, signal);
      }
      return {
        collected: true,
        supportBundleCollection: name,
        fileServer: server.url,
        status: status ?? null,
      };
    } catch (err) {
      return {
        collected: false,
        supportBundleCollection: name,
        error: err instanceof Error ? err.message : String(err),
      };
    }
  }

  /**
   * Support bundle (best effort): an archive with the adapter's own view (health, cluster inventory
   * summary, monitoring CRs, the SupportBundleCollection outcome) uploaded to NSX. Agent and
   * controller bundles go to the configured file server through a SupportBundleCollection.
   */
  private async runSupportBundle(req: SupportBundleRequest, signal: AbortSignal): Promise<void> {
    const { channel } = this.opts;
    const requestId = req.request_id;
    try {
      await channel.startSupportBundle(requestId);
      const antrea = await this.collectAntreaBundles(req, signal);
      const now = this.clock.now();
      const list = (kind: 'Node' | 'Namespace' | 'Pod' | 'Service') =>
        this.opts.inventory
          .list(kind)
          .map((o) => ({ name: o.metadata?.name, namespace: o.metadata?.namespace, uid: o.metadata?.uid }));
      const agents = await this.opts.crds.list('AntreaAgentInfo').catch(() => []);
      const controller = await this.opts.crds
        .get('AntreaControllerInfo', ANTREA_CONTROLLER_INFO_NAME)
        .catch(() => undefined);
      const files = [
        {
          name: 'adapters/health.json',
          data: JSON.stringify({ mp: this.health(), ccp: this.opts.ccpHealth?.() }, null, 2),
        },
        { name: 'clusterinfo/nodes.json', data: JSON.stringify(list('Node'), null, 2) },
        { name: 'clusterinfo/namespaces.json', data: JSON.stringify(list('Namespace'), null, 2) },
        { name: 'clusterinfo/pods.json', data: JSON.stringify(list('Pod'), null, 2) },
        { name: 'clusterinfo/services.json', data: JSON.stringify(list('Service'), null, 2) },
        { name: 'clusterinfo/antreaagentinfos.json', data: JSON.stringify(agents, null, 2) },
        { name: 'clusterinfo/antreacontrollerinfo.json', data: JSON.stringify(controller ?? null, null, 2) },
      ];
      const manifest = {
        antrea_bundles: antrea,
        cluster: this.opts.clusterName,
        cluster_id: this.clusterUuid,
        request_id: requestId,
        collected_at: new Date(now).toISOString(),
        files: files.map((f) => f.name),
      };
      const mtime = now / 1000;
      const archive = tarGz(
        [{ name: 'manifest.json', data: JSON.stringify(manifest, null, 2) }, ...files].map((f) => ({
          ...f,
          mtime,
        })),
      );
      await channel.uploadSupportBundle(requestId, archive);
      this.log.info({ requestId, bytes: archive.length }, 'support bundle uploaded');
    } catch (err) {
      this.log.warn({ requestId, err: String(err) }, 'support bundle failed');
      await channel
        .failSupportBundle(requestId, err instanceof Error ? err.message : String(err))
        .catch(() => undefined);
    }
  }
}
