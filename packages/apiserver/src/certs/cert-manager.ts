import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../clock.js';
import { type CaMaterial, createCa, issueServingCert, parseCertBundle } from './self-signed.js';

/** What the HTTPS listener serves and what clients must trust. */
export interface ServingCertificate {
  certPem: string;
  keyPem: string;
  /** PEM bundle clients should trust: the current CA, plus the previous one while it is valid. */
  caBundlePem: string;
  notBefore: number;
  notAfter: number;
}

/** Anything that yields the serving certificate and tells when it changes (self-signed, files...). */
export interface CertificateSource {
  current(): ServingCertificate;
  onChange(listener: (cert: ServingCertificate) => void): () => void;
}

/**
 * What survives a restart (antrea-controller keeps it in Secret antrea-controller-tls): the serving
 * certificate and key, and the CA that signed it, with its key so that later rotations keep it.
 */
export interface PersistedCertificates {
  certPem: string;
  keyPem: string;
  caCertPem: string;
  caKeyPem: string;
}

export interface SelfSignedCertManagerOptions {
  logger: Logger;
  clock?: Clock;
  /** Host part of the certificate names; Antrea uses the Service name "antrea". */
  host?: string;
  dnsNames: readonly string[];
  ipAddresses?: readonly string[];
  /** Lifetime of a serving certificate. Default 365 days like Antrea. */
  validityMs?: number;
  /** Lifetime of the CA. Default 5 years, so routine rotations keep the published bundle. */
  caValidityMs?: number;
  /** Rotate when less than this is left (serving cert or CA). Default a tenth of validityMs. */
  renewBeforeMs?: number;
  /** A staged next CA is in the bundle at least this long before it signs the served certificate. Default min(renewBefore/2, 1 day). */
  caLeadMs?: number;
  /** How often start() checks for expiry. Default 1 hour (and whenever checkRotation() is called). */
  checkIntervalMs?: number;
}

const DAY = 86_400_000;

/**
 * Generates a CA and serving certificate at construction and reissues before expiry. Routine
 * rotations keep the CA, so clients that loaded antrea-ca keep verifying. A CA nearing its end is
 * replaced in two steps: the next CA is first added to the bundle (and published), and only a later
 * rotation, at least `caLeadMs` on, serves a certificate it signed; the old CA stays in the bundle
 * until it expires. Clients that reload the bundle between the steps never see an unknown issuer.
 */
export class SelfSignedCertManager implements CertificateSource {
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #opts: Required<Omit<SelfSignedCertManagerOptions, 'logger' | 'clock'>>;
  readonly #listeners = new Set<(cert: ServingCertificate) => void>();
  #ca: CaMaterial;
  #nextCa: { ca: CaMaterial; stagedAt: number } | undefined;
  #previousCa: CaMaterial | undefined;
  #cert: ServingCertificate;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SelfSignedCertManagerOptions) {
    this.#log = options.logger.child({ component: 'cert-manager' });
    this.#clock = options.clock ?? systemClock;
    const validityMs = options.validityMs ?? 365 * DAY;
    const renewBeforeMs = options.renewBeforeMs ?? Math.floor(validityMs / 10);
    this.#opts = {
      host: options.host ?? 'antrea',
      dnsNames: options.dnsNames,
      ipAddresses: options.ipAddresses ?? [],
      validityMs,
      caValidityMs: Math.max(options.caValidityMs ?? 5 * 365 * DAY, validityMs),
      renewBeforeMs,
      caLeadMs: options.caLeadMs ?? Math.min(Math.floor(renewBeforeMs / 2), DAY),
      checkIntervalMs: options.checkIntervalMs ?? 3_600_000,
    };
    this.#ca = this.#newCa();
    this.#cert = this.#issue();
  }

  current(): ServingCertificate {
    return this.#cert;
  }

  onChange(listener: (cert: ServingCertificate) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Stages a next CA when the current one could not cover another full-length serving certificate
   * after this one, and reissues the serving certificate within renewBefore of its expiry. True if
   * anything (the certificate or only the bundle) changed; listeners hear of every change.
   */
  checkRotation(): boolean {
    const now = this.#clock.now();
    const { validityMs, renewBeforeMs, caLeadMs } = this.#opts;
    let changed = false;
    if (this.#previousCa && this.#previousCa.notAfter <= now) {
      this.#previousCa = undefined;
      changed = true;
    }
    if (!this.#nextCa && this.#ca.notAfter - now < validityMs + renewBeforeMs) {
      this.#nextCa = { ca: this.#newCa(), stagedAt: now };
      this.#log.info('next CA staged in the published bundle');
      changed = true;
    }
    if (this.#cert.notAfter - now <= renewBeforeMs) {
      if (this.#nextCa && now - this.#nextCa.stagedAt >= caLeadMs) {
        this.#previousCa = this.#ca;
        this.#ca = this.#nextCa.ca;
        this.#nextCa = undefined;
      }
      this.#cert = this.#issue();
      this.#log.info(
        { notAfter: new Date(this.#cert.notAfter).toISOString() },
        'serving certificate rotated',
      );
      changed = true;
    } else if (changed) {
      this.#cert = { ...this.#cert, caBundlePem: this.#bundle() };
    }
    if (changed) this.#notify();
    return changed;
  }

  /** The current serving certificate and CA, with their keys, to persist. */
  exportState(): PersistedCertificates {
    return {
      certPem: this.#cert.certPem,
      keyPem: this.#cert.keyPem,
      caCertPem: this.#ca.certPem,
      caKeyPem: this.#ca.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  }

  /**
   * Adopts persisted certificates (a previous run's) so that clients which trust the published CA
   * keep trusting this process. Refused (false, nothing changes) when the keys do not match the
   * certificates, the serving certificate is not signed by the CA, or the CA expired. A serving
   * certificate that lacks one of the configured names is reissued from the adopted CA; one near
   * its end rotates as usual. Listeners hear of the change.
   */
  restore(state: PersistedCertificates): boolean {
    const now = this.#clock.now();
    let ca: CaMaterial;
    let serving: X509Certificate;
    try {
      const caCert = new X509Certificate(state.caCertPem);
      const caKey = createPrivateKey(state.caKeyPem);
      serving = new X509Certificate(state.certPem);
      const servingKey = createPrivateKey(state.keyPem);
      if (!caCert.ca || !caCert.checkPrivateKey(caKey))
        throw new Error('CA certificate and key do not match');
      if (!serving.verify(caCert.publicKey) || !serving.checkPrivateKey(servingKey))
        throw new Error('serving certificate not signed by the CA or not matching its key');
      ca = {
        privateKey: caKey,
        publicKey: createPublicKey(caKey),
        commonName: caCert.subject.replace(/^CN=/, ''),
        certPem: state.caCertPem,
        notAfter: Date.parse(caCert.validTo),
      };
      if (ca.notAfter <= now) throw new Error('CA expired');
    } catch (err) {
      this.#log.warn({ err }, 'persisted certificates not usable; keeping the generated ones');
      return false;
    }
    this.#ca = ca;
    this.#nextCa = undefined;
    this.#previousCa = undefined;
    this.#cert = {
      certPem: state.certPem,
      keyPem: state.keyPem,
      caBundlePem: this.#bundle(),
      notBefore: Date.parse(serving.validFrom),
      notAfter: Date.parse(serving.validTo),
    };
    if (!this.#coversConfiguredNames(serving)) this.#cert = this.#issue();
    this.#log.info({ ca: ca.commonName }, 'adopted persisted certificates');
    if (!this.checkRotation()) this.#notify();
    return true;
  }

  #coversConfiguredNames(cert: X509Certificate): boolean {
    const names = new Set((cert.subjectAltName ?? '').split(', '));
    return (
      this.#opts.dnsNames.every((n) => names.has(`DNS:${n}`)) &&
      this.#opts.ipAddresses.every((ip) => cert.checkIP(ip) !== undefined)
    );
  }

  start(signal?: AbortSignal): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.checkRotation(), this.#opts.checkIntervalMs);
    this.#timer.unref();
    signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #notify(): void {
    for (const listener of this.#listeners) {
      try {
        listener(this.#cert);
      } catch (error) {
        this.#log.error({ err: error }, 'certificate change listener failed');
      }
    }
  }

  #newCa(): CaMaterial {
    return createCa(this.#opts.host, this.#clock.now(), this.#opts.caValidityMs);
  }

  /** The serving CA first, then the staged next CA and the retiring previous one. */
  #bundle(): string {
    return [this.#ca, this.#nextCa?.ca, this.#previousCa]
      .filter((ca): ca is CaMaterial => ca !== undefined)
      .map((ca) => ca.certPem)
      .join('');
  }

  #issue(): ServingCertificate {
    const now = this.#clock.now();
    const serving = issueServingCert(
      this.#ca,
      this.#opts.host,
      now,
      this.#opts.validityMs,
      this.#opts.dnsNames,
      this.#opts.ipAddresses,
    );
    return { ...serving, caBundlePem: this.#bundle() };
  }
}

/** The DNS names Antrea puts in its self-signed certificate for Service `name` in `namespace`. */
export function serviceDnsNames(name: string, namespace: string): string[] {
  return [name, `${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`];
}

export { parseCertBundle };
