import type { Logger } from 'pino';
import {
  type AuthenticationConfig,
  EMPTY_AUTHENTICATION_CONFIG,
  parseAuthenticationConfig,
} from '../authn/client-cert.js';
import type { ConfigMapClient } from './kube-clients.js';

export interface AuthenticationConfigSourceOptions {
  logger: Logger;
  configMaps: ConfigMapClient;
  /** Default 60 s: CA rotations on the kube-apiserver side are rare. */
  pollMs?: number;
}

/**
 * Follows kube-system/extension-apiserver-authentication (kube-apiserver keeps it in step with its
 * flags) so a rotated front-proxy or client CA is picked up without a restart.
 */
export class AuthenticationConfigSource {
  readonly #log: Logger;
  readonly #opts: AuthenticationConfigSourceOptions;
  readonly #listeners = new Set<(config: AuthenticationConfig) => void>();
  #config: AuthenticationConfig = EMPTY_AUTHENTICATION_CONFIG;
  #raw = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(options: AuthenticationConfigSourceOptions) {
    this.#log = options.logger.child({ component: 'authn-config' });
    this.#opts = options;
  }

  current(): AuthenticationConfig {
    return this.#config;
  }

  onChange(listener: (config: AuthenticationConfig) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the ConfigMap once; a missing ConfigMap means no certificate-based authentication. */
  async load(): Promise<AuthenticationConfig> {
    const data = (await this.#opts.configMaps.get('kube-system', 'extension-apiserver-authentication')) ?? {};
    const raw = JSON.stringify(Object.entries(data).sort());
    if (raw === this.#raw) return this.#config;
    this.#config = parseAuthenticationConfig(data);
    this.#raw = raw;
    this.#log.info(
      { requestHeaderCAs: this.#config.requestHeaderCAs.length, clientCAs: this.#config.clientCAs.length },
      'authentication config loaded',
    );
    for (const listener of this.#listeners) listener(this.#config);
    return this.#config;
  }

  async start(signal?: AbortSignal): Promise<void> {
    await this.load();
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      this.load().catch((error: unknown) =>
        this.#log.warn({ err: error }, 'reloading authentication config failed'),
      );
    }, this.#opts.pollMs ?? 60_000);
    this.#timer.unref();
    signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
