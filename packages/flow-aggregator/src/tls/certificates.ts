import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { issueCertificate } from '@antrea-ts/apiserver';

/** A certificate and its private key, PEM. */
export interface CertKeyPem {
  readonly certPem: string;
  readonly keyPem: string;
}

const DAY_MS = 86_400_000;
/** Antrea's flow aggregator certificates: self-signed, one year. */
export const CERT_VALIDITY_MS = 365 * DAY_MS;
/** Rotated when less than this is left (Antrea's minValidDuration, 90 days). */
export const MIN_VALID_MS = 90 * DAY_MS;
/** Valid from an hour back, for Nodes whose clocks lag (as Antrea). */
const BACKDATE_MS = 3_600_000;

function serial(): Uint8Array {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b;
}

function keyPair() {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** A self-signed CA named as Antrea names it (`flow-aggregator-ca@<unix seconds>`). */
export function createFlowAggregatorCa(nowMs: number): CertKeyPem {
  const keys = keyPair();
  const subject = { commonName: `flow-aggregator-ca@${unixSeconds(nowMs)}` };
  const certPem = issueCertificate(
    {
      serial: serial(),
      subject,
      notBefore: nowMs - BACKDATE_MS,
      notAfter: nowMs - BACKDATE_MS + CERT_VALIDITY_MS,
      publicKey: keys.publicKey,
      isCa: true,
      extKeyUsage: ['clientAuth', 'serverAuth'],
    },
    { subject, ...keys },
  );
  return { certPem, keyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/**
 * A leaf signed by `ca`: the server certificate (serverAuth, `names` as DNS or IP SANs) or the one
 * client certificate every agent presents (clientAuth).
 */
export function issueLeaf(
  ca: CertKeyPem,
  role: 'server' | 'client',
  nowMs: number,
  names: readonly string[] = [],
): CertKeyPem {
  const caCert = new X509Certificate(ca.certPem);
  const caKey = createPrivateKey(ca.keyPem);
  const keys = keyPair();
  const certPem = issueCertificate(
    {
      serial: serial(),
      subject: { commonName: `flow-aggregator-${role}-certificate@${unixSeconds(nowMs)}` },
      notBefore: nowMs - BACKDATE_MS,
      notAfter: nowMs - BACKDATE_MS + CERT_VALIDITY_MS,
      publicKey: keys.publicKey,
      isCa: false,
      extKeyUsage: [role === 'server' ? 'serverAuth' : 'clientAuth'],
      dnsNames: names.filter((n) => isIP(n) === 0),
      ipAddresses: names.filter((n) => isIP(n) !== 0),
    },
    {
      subject: { commonName: commonNameOf(caCert) },
      privateKey: caKey,
      publicKey: caCert.publicKey,
    },
  );
  return { certPem, keyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

const commonNameOf = (c: X509Certificate): string => /CN=([^\n,]+)/.exec(c.subject)?.[1] ?? '';

/**
 * Whether a stored pair can stay: it parses, the key is the certificate's, it is valid for at least
 * MIN_VALID_MS more, and (for a leaf) `ca` signed it.
 */
export function isUsable(pair: CertKeyPem | undefined, nowMs: number, ca?: CertKeyPem): boolean {
  if (!pair?.certPem || !pair.keyPem) return false;
  try {
    const cert = new X509Certificate(pair.certPem);
    if (!cert.checkPrivateKey(createPrivateKey(pair.keyPem))) return false;
    if (Date.parse(cert.validTo) - nowMs < MIN_VALID_MS || Date.parse(cert.validFrom) > nowMs) return false;
    if (ca) {
      const caCert = new X509Certificate(ca.certPem);
      if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return false;
    }
    return true;
  } catch {
    return false;
  }
}
