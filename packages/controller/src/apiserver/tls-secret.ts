import type { SelfSignedCertManager } from '@antrea-ts/apiserver';
import { ApiException, CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import type { Logger } from 'pino';

// Like Antrea's selfSignedCertProvider with TLSSecretName: the self-signed material lives in Secret
// kube-system/antrea-controller-tls, so a restarted (or rescheduled) controller serves a
// certificate its agents, antctl and kube-apiserver (APIService caBundle) already trust. Antrea's
// certificate is its own CA; ours is CA-signed, so the Secret also holds the CA (ca.crt, ca.key).

/** Antrea's AntreaControllerTLSSecretName. */
export const CONTROLLER_TLS_SECRET_NAME = 'antrea-controller-tls';

type PersistedCertificates = ReturnType<SelfSignedCertManager['exportState']>;

/** The Secret operations the persistence needs (a test double implements them too). */
export interface SecretClient {
  /** The Secret's data (decoded), or undefined when it does not exist. */
  get(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  /** Creates it as type kubernetes.io/tls, or replaces the data of the existing one. */
  put(namespace: string, name: string, data: Record<string, string>): Promise<void>;
}

const KEYS = { certPem: 'tls.crt', keyPem: 'tls.key', caCertPem: 'ca.crt', caKeyPem: 'ca.key' } as const;

function toData(s: PersistedCertificates): Record<string, string> {
  return {
    [KEYS.certPem]: s.certPem,
    [KEYS.keyPem]: s.keyPem,
    [KEYS.caCertPem]: s.caCertPem,
    [KEYS.caKeyPem]: s.caKeyPem,
  };
}

function fromData(d: Record<string, string>): PersistedCertificates | undefined {
  const s = {
    certPem: d[KEYS.certPem],
    keyPem: d[KEYS.keyPem],
    caCertPem: d[KEYS.caCertPem],
    caKeyPem: d[KEYS.caKeyPem],
  };
  return s.certPem && s.keyPem && s.caCertPem && s.caKeyPem ? (s as PersistedCertificates) : undefined;
}

function sameData(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.values(KEYS).every((k) => a[k] === b[k]);
}

export interface TlsSecretPersistenceOptions {
  logger: Logger;
  secrets: SecretClient;
  certificates: SelfSignedCertManager;
  namespace: string;
  name?: string;
  /** Pause between attempts when saving fails (e.g. no RBAC for Secrets yet). Default 30 s. */
  retryMs?: number;
  /** How often the Secret is read again to adopt another instance's rotation. Default 1 hour. */
  resyncMs?: number;
}

/**
 * Restores the certificates from the Secret at start (before serving), then writes every change
 * (first generation, rotations) back. A missing or unusable Secret leaves the generated material,
 * which is then saved; a failing API is retried in the background rather than stopping the
 * controller, which keeps serving with what it has. The Secret stays the source of truth: it is
 * read again periodically (Antrea: on Secret events and hourly), so that two instances running
 * during a rolling update end up serving the same certificates.
 */
export class TlsSecretPersistence {
  readonly #log: Logger;
  readonly #opts: Required<Omit<TlsSecretPersistenceOptions, 'logger'>>;
  #unsubscribe: (() => void) | undefined;
  #retry: NodeJS.Timeout | undefined;
  #resync: NodeJS.Timeout | undefined;
  /** Set while adopting the Secret's content: that change needs no write back. */
  #adopting = false;
  #saving: Promise<void> = Promise.resolve();

  constructor(options: TlsSecretPersistenceOptions) {
    this.#log = options.logger.child({ component: 'tls-secret' });
    this.#opts = {
      secrets: options.secrets,
      certificates: options.certificates,
      namespace: options.namespace,
      name: options.name ?? CONTROLLER_TLS_SECRET_NAME,
      retryMs: options.retryMs ?? 30_000,
      resyncMs: options.resyncMs ?? 3_600_000,
    };
  }

  /** Adopts the persisted certificates if usable, then persists what is served and follows changes. */
  async start(): Promise<void> {
    const { certificates, namespace, name } = this.#opts;
    const stored = await this.#read();
    const persisted = stored && fromData(stored);
    if (persisted) certificates.restore(persisted);
    else if (stored) this.#log.warn({ secret: `${namespace}/${name}` }, 'TLS Secret incomplete; generating');
    this.#unsubscribe ??= certificates.onChange(() => {
      if (!this.#adopting) void this.#save();
    });
    if (!stored || !sameData(stored, toData(certificates.exportState()))) await this.#save();
    if (!this.#resync) {
      this.#resync = setInterval(() => void this.resync(), this.#opts.resyncMs);
      this.#resync.unref();
    }
  }

  /**
   * Adopts what the Secret holds when it differs from what is served and is usable (another
   * instance rotated). True when something was adopted.
   */
  async resync(): Promise<boolean> {
    const { certificates } = this.#opts;
    const stored = await this.#read();
    const persisted = stored && fromData(stored);
    if (!stored || !persisted || sameData(stored, toData(certificates.exportState()))) return false;
    this.#adopting = true;
    try {
      return certificates.restore(persisted);
    } finally {
      this.#adopting = false;
    }
  }

  /** The Secret's data; undefined when it does not exist or cannot be read (logged). */
  async #read(): Promise<Record<string, string> | undefined> {
    const { secrets, namespace, name } = this.#opts;
    try {
      return await secrets.get(namespace, name);
    } catch (err) {
      this.#log.warn({ err, secret: `${namespace}/${name}` }, 'cannot read the TLS Secret');
      return undefined;
    }
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    if (this.#resync) clearInterval(this.#resync);
    this.#resync = undefined;
  }

  /** Serialized saves of the current state; a failure schedules one retry of the latest state. */
  #save(): Promise<void> {
    this.#saving = this.#saving.then(async () => {
      const { secrets, certificates, namespace, name, retryMs } = this.#opts;
      try {
        await secrets.put(namespace, name, toData(certificates.exportState()));
        this.#log.info({ secret: `${namespace}/${name}` }, 'persisted self-signed certificates');
      } catch (err) {
        this.#log.warn({ err, secret: `${namespace}/${name}` }, 'cannot persist certificates; retrying');
        if (this.#unsubscribe && !this.#retry) {
          this.#retry = setTimeout(() => {
            this.#retry = undefined;
            if (this.#unsubscribe) void this.#save();
          }, retryMs);
          this.#retry.unref();
        }
      }
    });
    return this.#saving;
  }
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

/** SecretClient over the core/v1 API. */
export class KubeSecretClient implements SecretClient {
  readonly #api: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(CoreV1Api);
  }

  async #read(namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await this.#api.readNamespacedSecret({ namespace, name });
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw err;
    }
  }

  async get(namespace: string, name: string): Promise<Record<string, string> | undefined> {
    const secret = await this.#read(namespace, name);
    if (!secret) return undefined;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(secret.data ?? {}))
      out[k] = Buffer.from(v, 'base64').toString('utf8');
    return out;
  }

  async put(namespace: string, name: string, data: Record<string, string>): Promise<void> {
    const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)]));
    const existing = await this.#read(namespace, name);
    // As Antrea: an existing Secret keeps its type (immutable), only its data changes.
    if (existing) {
      await this.#api.replaceNamespacedSecret({
        namespace,
        name,
        body: { ...existing, data: { ...existing.data, ...encoded } },
      });
    } else {
      await this.#api.createNamespacedSecret({
        namespace,
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace },
          type: 'kubernetes.io/tls',
          data: encoded,
        },
      });
    }
  }
}
