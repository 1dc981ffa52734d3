import type { CertificateSource } from '@antrea-ts/apiserver';
import {
  AdmissionregistrationV1Api,
  type KubeConfig,
  type V1MutatingWebhookConfiguration,
  type V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';

/** The label selector Antrea's CA controller lists webhook configurations with. */
export const ANTREA_SERVED_SELECTOR = 'app=antrea,served-by=antrea-controller';

type WebhookConfiguration = V1ValidatingWebhookConfiguration | V1MutatingWebhookConfiguration;

/** The webhook configuration calls the injector makes (a test double implements it too). */
export interface WebhookConfigurationClient {
  list(kind: 'validating' | 'mutating', labelSelector: string): Promise<WebhookConfiguration[]>;
  replace(kind: 'validating' | 'mutating', config: WebhookConfiguration): Promise<void>;
}

export class KubeWebhookConfigurationClient implements WebhookConfigurationClient {
  readonly #api: AdmissionregistrationV1Api;
  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(AdmissionregistrationV1Api);
  }
  async list(kind: 'validating' | 'mutating', labelSelector: string): Promise<WebhookConfiguration[]> {
    const list =
      kind === 'validating'
        ? await this.#api.listValidatingWebhookConfiguration({ labelSelector })
        : await this.#api.listMutatingWebhookConfiguration({ labelSelector });
    return list.items;
  }
  async replace(kind: 'validating' | 'mutating', config: WebhookConfiguration): Promise<void> {
    const name = config.metadata?.name ?? '';
    if (kind === 'validating')
      await this.#api.replaceValidatingWebhookConfiguration({
        name,
        body: config as V1ValidatingWebhookConfiguration,
      });
    else
      await this.#api.replaceMutatingWebhookConfiguration({
        name,
        body: config as V1MutatingWebhookConfiguration,
      });
  }
}

export interface WebhookCaInjectorOptions {
  logger: Logger;
  client: WebhookConfigurationClient;
  labelSelector?: string;
  /** Delay before retrying a failed sync; default 10 s. */
  retryMs?: number;
  /** Re-check period (configurations applied after start-up get the bundle); default 60 s. */
  resyncMs?: number;
}

/**
 * Antrea's CACertController for admission webhooks: every Validating/MutatingWebhookConfiguration
 * labelled app=antrea,served-by=antrea-controller gets the controller's CA bundle in each webhook's
 * clientConfig.caBundle, now, after every rotation and on a periodic resync.
 */
export class WebhookCaInjector {
  readonly #log: Logger;
  readonly #opts: WebhookCaInjectorOptions;
  #source: CertificateSource | undefined;
  #unsubscribe: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = true;

  constructor(options: WebhookCaInjectorOptions) {
    this.#log = options.logger.child({ component: 'webhook-ca-injector' });
    this.#opts = options;
  }

  /** Updates every selected configuration whose bundle differs; returns how many were updated. */
  async sync(caBundlePem: string): Promise<number> {
    const bundle = Buffer.from(caBundlePem).toString('base64');
    const selector = this.#opts.labelSelector ?? ANTREA_SERVED_SELECTOR;
    let updated = 0;
    for (const kind of ['validating', 'mutating'] as const) {
      for (const config of await this.#opts.client.list(kind, selector)) {
        let changed = false;
        for (const webhook of config.webhooks ?? []) {
          if (webhook.clientConfig.caBundle === bundle) continue;
          webhook.clientConfig.caBundle = bundle;
          changed = true;
        }
        if (!changed) continue;
        await this.#opts.client.replace(kind, config);
        this.#log.info(
          { kind, name: config.metadata?.name },
          'CA bundle injected into webhook configuration',
        );
        updated++;
      }
    }
    return updated;
  }

  /** Syncs now (retrying until it works or stop()) and whenever the source rotates. */
  async start(source: CertificateSource): Promise<void> {
    this.#stopped = false;
    this.#source = source;
    this.#unsubscribe = source.onChange(() => void this.#kick());
    await this.#kick();
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Waits for a sync in flight (tests). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  #kick(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const run = (async () => {
      do {
        this.#again = false;
        if (this.#stopped || !this.#source) return;
        if (this.#timer) clearTimeout(this.#timer);
        this.#timer = undefined;
        let delay = this.#opts.resyncMs ?? 60_000;
        try {
          await this.sync(this.#source.current().caBundlePem);
        } catch (err) {
          this.#log.warn({ err }, 'injecting the CA bundle into webhook configurations failed; retrying');
          delay = this.#opts.retryMs ?? 10_000;
        }
        if (!this.#stopped && !this.#again) {
          this.#timer = setTimeout(() => void this.#kick(), delay);
          this.#timer.unref();
        }
      } while (this.#again && !this.#stopped);
    })();
    this.#running = run;
    return run.finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
  }
}
