import {
  CRD_KINDS,
  type CrdInformer,
  crdInformer,
  restartInformerOnError,
  type Traceflow,
  type TraceflowStatus,
} from '@antrea-ts/apis';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { TraceflowStore } from './traceflow-controller.js';

const { group, version, plural } = CRD_KINDS.Traceflow;
/** The request parameters client-node's CustomObjectsApi takes for traceflows. */
const CRD = { group, version, plural };

/** TraceflowStore on kube-apiserver: a list-watch informer and the status subresource. */
export class KubeTraceflowStore implements TraceflowStore {
  private readonly api: CustomObjectsApi;
  private informer: CrdInformer<Traceflow> | undefined;
  private readonly log: Logger;

  constructor(
    private readonly kc: KubeConfig,
    logger: Logger,
  ) {
    this.api = kc.makeApiClient(CustomObjectsApi);
    this.log = logger.child({ component: 'traceflow-store' });
  }

  async start(handlers: { changed(tf: Traceflow): void; removed(tf: Traceflow): void }): Promise<void> {
    if (this.informer) return;
    const informer = crdInformer<Traceflow>(this.kc, CRD);
    this.informer = informer;
    informer.on('add', (tf) => handlers.changed(tf));
    informer.on('update', (tf) => handlers.changed(tf));
    informer.on('delete', (tf) => handlers.removed(tf));
    restartInformerOnError(informer, {
      active: () => this.informer === informer,
      onError: (err) => this.log.warn({ err: String(err) }, 'Traceflow watch failed; restarting'),
    });
    await informer.start();
  }

  list(): Traceflow[] {
    return [...(this.informer?.list() ?? [])];
  }

  get(name: string): Traceflow | undefined {
    return this.informer?.get(name);
  }

  async updateStatus(tf: Traceflow, status: TraceflowStatus): Promise<void> {
    const name = tf.metadata.name ?? '';
    await this.api.replaceClusterCustomObjectStatus({ ...CRD, name, body: { ...tf, status } });
  }

  async stop(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    await informer?.stop();
  }
}
