import { CRD_KINDS, CrdWatch, type Traceflow, type TraceflowStatus } from '@antrea-ts/apis';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { TraceflowStore } from './traceflow-controller.js';

const { group, version, plural } = CRD_KINDS.Traceflow;
/** The request parameters client-node's CustomObjectsApi takes for traceflows. */
const CRD = { group, version, plural };

/** TraceflowStore on kube-apiserver: a list-watch informer and the status subresource. */
export class KubeTraceflowStore implements TraceflowStore {
  private readonly api: CustomObjectsApi;
  private readonly traceflows: CrdWatch<Traceflow>;
  private readonly log: Logger;

  constructor(kc: KubeConfig, logger: Logger) {
    this.api = kc.makeApiClient(CustomObjectsApi);
    this.log = logger.child({ component: 'traceflow-store' });
    this.traceflows = new CrdWatch<Traceflow>(kc, CRD, (err) =>
      this.log.warn({ err: String(err) }, 'Traceflow watch failed; restarting'),
    );
  }

  async start(handlers: { changed(tf: Traceflow): void; removed(tf: Traceflow): void }): Promise<void> {
    await this.traceflows.start({
      upsert: (tf) => handlers.changed(tf),
      remove: (tf) => handlers.removed(tf),
    });
  }

  list(): Traceflow[] {
    return [...(this.traceflows.cache?.list() ?? [])];
  }

  get(name: string): Traceflow | undefined {
    return this.traceflows.cache?.get(name);
  }

  async updateStatus(tf: Traceflow, status: TraceflowStatus): Promise<void> {
    const name = tf.metadata.name ?? '';
    await this.api.replaceClusterCustomObjectStatus({ ...CRD, name, body: { ...tf, status } });
  }

  async stop(): Promise<void> {
    await this.traceflows.stop();
  }
}
