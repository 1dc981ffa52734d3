import { ANTREA_NAMESPACE, CA_CONFIGMAP_NAME } from '@antrea-ts/apis';
import type { V1APIService } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { CertificateSource } from '../certs/cert-manager.js';
import { ApiServerError } from '../errors.js';
import type { APIServiceClient, ConfigMapClient } from './kube-clients.js';

export interface GroupVersion {
  group: string;
  version: string;
}

/** The aggregated APIs Antrea's chart registers (build/charts/antrea/templates/controller/apiservices.yaml). */
export const ANTREA_API_GROUP_VERSIONS: readonly GroupVersion[] = [
  { group: 'controlplane.antrea.io', version: 'v1beta2' },
  { group: 'system.antrea.io', version: 'v1beta1' },
  { group: 'stats.antrea.io', version: 'v1alpha1' },
];

export interface ServiceRef {
  name: string;
  namespace: string;
  /** Service port; the aggregator dials the endpoint's matching target port. Default 443. */
  port?: number;
}

export function apiServiceName(gv: GroupVersion): string {
  return `${gv.version}.${gv.group}`;
}

/** The APIService objects for `groupVersions`, pointing at `service` and trusting `caBundlePem`. */
export function buildApiServices(
  service: ServiceRef,
  caBundlePem: string,
  groupVersions: readonly GroupVersion[] = ANTREA_API_GROUP_VERSIONS,
): V1APIService[] {
  return groupVersions.map((gv) => ({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: apiServiceName(gv), labels: { app: 'antrea' } },
    spec: {
      group: gv.group,
      version: gv.version,
      groupPriorityMinimum: 100,
      versionPriority: 100,
      service: { name: service.name, namespace: service.namespace, port: service.port ?? 443 },
      caBundle: Buffer.from(caBundlePem).toString('base64'),
    },
  }));
}

/** Creates or updates the APIService objects (the registration helper). */
export async function registerApiServices(
  client: APIServiceClient,
  service: ServiceRef,
  caBundlePem: string,
  groupVersions: readonly GroupVersion[] = ANTREA_API_GROUP_VERSIONS,
): Promise<void> {
  for (const apiService of buildApiServices(service, caBundlePem, groupVersions))
    await client.put(apiService);
}

export interface CaBundlePublisherOptions {
  logger: Logger;
  configMaps: ConfigMapClient;
  apiServices: APIServiceClient;
  service: ServiceRef;
  /** ConfigMap that receives `ca.crt`; default kube-system/antrea-ca. */
  configMap?: { namespace: string; name: string };
  groupVersions?: readonly GroupVersion[];
  /** Delay before retrying a failed publish; default 10 s. */
  retryMs?: number;
}

/**
 * Keeps the CA bundle published where clients look for it: ConfigMap antrea-ca (agents and antctl
 * read `ca.crt`) and each APIService's caBundle (the aggregator verifies us with it). Re-publishes
 * whenever the certificate source rotates, retrying until it succeeds or a newer bundle replaces it.
 */
export class CaBundlePublisher {
  readonly #log: Logger;
  readonly #opts: CaBundlePublisherOptions;
  #pending: string | undefined;
  #running: Promise<void> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  #published: string | undefined;

  constructor(options: CaBundlePublisherOptions) {
    this.#log = options.logger.child({ component: 'ca-publisher' });
    this.#opts = options;
  }

  /** The bundle last published successfully. */
  get published(): string | undefined {
    return this.#published;
  }

  /** Publishes once; throws APISERVER_PUBLISH_FAILED. */
  async publish(caBundlePem: string): Promise<void> {
    const cm = this.#opts.configMap ?? { namespace: ANTREA_NAMESPACE, name: CA_CONFIGMAP_NAME };
    try {
      await this.#opts.configMaps.put(cm.namespace, cm.name, { 'ca.crt': caBundlePem });
      await registerApiServices(
        this.#opts.apiServices,
        this.#opts.service,
        caBundlePem,
        this.#opts.groupVersions,
      );
      this.#published = caBundlePem;
    } catch (error) {
      throw new ApiServerError('APISERVER_PUBLISH_FAILED', 'publishing the CA bundle failed', {
        cause: error,
      });
    }
  }

  /** Publishes the source's bundle now and after every rotation; resolves after the first success. */
  async start(source: CertificateSource, signal?: AbortSignal): Promise<void> {
    this.#stopped = false;
    signal?.addEventListener('abort', () => this.stop(), { once: true });
    this.#unsubscribe = source.onChange((cert) => this.#schedule(cert.caBundlePem));
    await this.#publishWithRetry(source.current().caBundlePem);
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  /** Waits for publishes in flight (tests). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #schedule(bundle: string): void {
    if (bundle === this.#published) return;
    void this.#publishWithRetry(bundle).catch(() => {});
  }

  async #publishWithRetry(bundle: string): Promise<void> {
    this.#pending = bundle;
    while (this.#running) await this.#running.catch(() => {});
    if (this.#pending !== bundle || this.#stopped) return;
    const attempt = (async () => {
      for (;;) {
        try {
          await this.publish(bundle);
          this.#log.info('CA bundle published');
          return;
        } catch (error) {
          this.#log.warn({ err: error }, 'CA bundle publish failed; retrying');
          await new Promise<void>((resolve) => {
            this.#retryTimer = setTimeout(resolve, this.#opts.retryMs ?? 10_000);
          });
          // A newer bundle (or stop) supersedes this one.
          if (this.#stopped || this.#pending !== bundle) return;
        }
      }
    })();
    this.#running = attempt;
    try {
      await attempt;
    } finally {
      if (this.#running === attempt) this.#running = undefined;
    }
  }
}
