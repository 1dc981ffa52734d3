// One list-watch informer construction for custom resources (crd.antrea.io, and the
// policy.networking.k8s.io admin policies), used by the controller (policy CRDs, Traceflows) and the
// agent (Traceflows). It lives here because both depend on this package
// and neither may depend on the other. Building an informer does no I/O: the API is contacted only
// once the caller starts it.
import {
  CustomObjectsApi,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
  type ObjectCache,
} from '@kubernetes/client-node';

/** client-node's informer with its object cache. */
export type CrdInformer<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

/** A list-watch informer on every object of one custom resource, across namespaces. */
export function crdInformer<T extends KubernetesObject>(
  kc: KubeConfig,
  kind: { readonly group: string; readonly version: string; readonly plural: string },
): CrdInformer<T> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const { group, version, plural } = kind;
  const list = async () =>
    (await api.listClusterCustomObject({ group, version, plural })) as KubernetesListObject<T>;
  return makeInformer<T>(kc, `/apis/${group}/${version}/${plural}`, list);
}

/**
 * client-node's informer stops on a failed list or watch and only reports it: start it again after
 * `delayMs`, for as long as `active()` says its owner still wants it (false once stopped).
 */
export function restartInformerOnError<T extends KubernetesObject>(
  informer: Informer<T>,
  opts: {
    active: () => boolean;
    onError: (err: unknown) => void;
    delayMs?: number;
    /** Called after each restart's start() resolved (a retried list may have succeeded). */
    onRestarted?: () => void;
  },
): void {
  informer.on('error', (err) => {
    if (!opts.active()) return;
    opts.onError(err);
    setTimeout(() => {
      if (opts.active()) void informer.start().then(opts.onRestarted, () => undefined);
    }, opts.delayMs ?? 1000);
  });
}

/**
 * An informer's list function that remembers whether a list was ever read. informer.start()
 * resolves after a failed list too (it only reports an 'error'), so an owner that must not take
 * "nothing known" for "nothing there" asks `listed()` before announcing its initial state.
 */
export function trackListed<L>(list: () => Promise<L>): { list: () => Promise<L>; listed: () => boolean } {
  let listed = false;
  return {
    list: async () => {
      const answer = await list();
      listed = true;
      return answer;
    },
    listed: () => listed,
  };
}

/** What a CrdWatch feeds: every add and update, and each delete (with the object as last known). */
export interface CrdWatchHandlers<T> {
  upsert(obj: T): void;
  remove(obj: T): void;
}

/**
 * One custom resource watched for an owner that starts and stops it: an informer feeding
 * `handlers`, restarted after a failed list or watch until stop(). start() is idempotent and
 * resolves once the first list was attempted; the informer's cache is readable through `cache`.
 */
export class CrdWatch<T extends KubernetesObject> {
  #informer: CrdInformer<T> | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly kind: { readonly group: string; readonly version: string; readonly plural: string },
    /** Told of each failed list or watch before the restart (a log line, typically). */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** The running informer's cache; undefined before start() and after stop(). */
  get cache(): ObjectCache<T> | undefined {
    return this.#informer;
  }

  async start(handlers: CrdWatchHandlers<T>): Promise<void> {
    if (this.#informer) return;
    const informer = crdInformer<T>(this.kc, this.kind);
    this.#informer = informer;
    informer.on('add', (obj) => handlers.upsert(obj));
    informer.on('update', (obj) => handlers.upsert(obj));
    informer.on('delete', (obj) => handlers.remove(obj));
    restartInformerOnError(informer, { active: () => this.#informer === informer, onError: this.onError });
    await informer.start();
  }

  async stop(): Promise<void> {
    const informer = this.#informer;
    this.#informer = undefined;
    await informer?.stop();
  }
}
