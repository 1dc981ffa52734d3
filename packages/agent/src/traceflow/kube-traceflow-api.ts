import {
  CRD_KINDS,
  CrdWatch,
  type Traceflow,
  type TraceflowNodeResult,
  type TraceflowPacket,
} from '@antrea-ts/apis';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { podIPv4, unlessNotFound } from '../k8s/cluster-lookup.js';

/** Traceflow events the agent reacts to. */
export interface TraceflowHandlers {
  upsert(tf: Traceflow): void;
  remove(name: string): void;
}

/** The agent's view of the Kubernetes API for Traceflows; tests may use a double. */
export interface TraceflowApi {
  watch(handlers: TraceflowHandlers, signal?: AbortSignal): Promise<void>;
  stop(): Promise<void>;
  /** Adds this Node's result to status.results (and the captured packet), retrying on conflicts. */
  appendResult(name: string, result: TraceflowNodeResult, captured?: TraceflowPacket): Promise<void>;
  /** Ends the Traceflow as Failed with a reason (this Node cannot run it). */
  fail(name: string, reason: string): Promise<void>;
  /** The IPv4 address of a Pod anywhere in the cluster (a remote destination). */
  podIp(namespace: string, name: string): Promise<string | undefined>;
  /** A Service's addresses and ports (a Service destination); undefined when there is no such Service. */
  service(namespace: string, name: string): Promise<TracedService | undefined>;
}

/** What a Traceflow needs of a destination Service. */
export interface TracedService {
  /** spec.clusterIPs (or clusterIP); "None" for a headless Service. */
  readonly clusterIps: readonly string[];
  readonly ports: ReadonlyArray<{ readonly port: number; readonly protocol: string }>;
}

const { group, version, plural } = CRD_KINDS.Traceflow;
/** The request parameters client-node's CustomObjectsApi takes for traceflows. */
const CRD = { group, version, plural };
const CONFLICT_RETRIES = 8;

/** TraceflowApi on kube-apiserver: an informer on traceflows and read-modify-write of status. */
export class KubeTraceflowApi implements TraceflowApi {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly traceflows: CrdWatch<Traceflow>;
  private readonly log: Logger;

  constructor(kubeConfig: KubeConfig, logger: Logger) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.log = logger.child({ component: 'traceflow-informer' });
    this.traceflows = new CrdWatch<Traceflow>(kubeConfig, CRD, (err) =>
      this.log.warn({ err: String(err) }, 'Traceflow watch failed; restarting'),
    );
  }

  async watch(handlers: TraceflowHandlers, signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await this.traceflows.start({
      upsert: (tf) => handlers.upsert(tf),
      remove: (tf) => handlers.remove(tf.metadata.name ?? ''),
    });
  }

  async stop(): Promise<void> {
    await this.traceflows.stop();
  }

  async appendResult(name: string, result: TraceflowNodeResult, captured?: TraceflowPacket): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const tf = (await this.custom.getClusterCustomObjectStatus({ ...CRD, name })) as Traceflow;
      const status = { ...tf.status, results: [...(tf.status?.results ?? []), result] };
      if (captured) status.capturedPacket = captured;
      try {
        await this.custom.replaceClusterCustomObjectStatus({ ...CRD, name, body: { ...tf, status } });
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= CONFLICT_RETRIES) throw err;
      }
    }
  }

  async fail(name: string, reason: string): Promise<void> {
    await this.custom.patchClusterCustomObjectStatus(
      { ...CRD, name, body: { status: { phase: 'Failed', reason } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  async podIp(namespace: string, name: string): Promise<string | undefined> {
    return podIPv4(await unlessNotFound(() => this.core.readNamespacedPod({ namespace, name })));
  }

  async service(namespace: string, name: string): Promise<TracedService | undefined> {
    const svc = await unlessNotFound(() => this.core.readNamespacedService({ namespace, name }));
    if (!svc) return undefined;
    const spec = svc.spec ?? {};
    return {
      clusterIps: spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []),
      ports: (spec.ports ?? []).map((p) => ({ port: p.port, protocol: p.protocol ?? 'TCP' })),
    };
  }
}
