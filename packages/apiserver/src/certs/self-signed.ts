import { generateKeyPairSync, type KeyObject, randomBytes, X509Certificate } from 'node:crypto';
import { issueCertificate } from '../x509/certificate.js';

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface CaMaterial extends KeyPair {
  commonName: string;
  certPem: string;
  notAfter: number;
}

export function generateKeyPair(): KeyPair {
  // P-256 keys take well under a millisecond, so rotation never blocks the event loop noticeably.
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

function serial(): Uint8Array {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes;
}

/** A self-signed CA named like client-go's GenerateSelfSignedCertKey (`<host>-ca@<unix seconds>`). */
export function createCa(host: string, nowMs: number, validityMs: number): CaMaterial {
  const keys = generateKeyPair();
  const commonName = `${host}-ca@${Math.floor(nowMs / 1000)}`;
  // Backdate by an hour like client-go, so a peer with a slightly slow clock still accepts it.
  const notBefore = nowMs - 3_600_000;
  const notAfter = nowMs + validityMs;
  const certPem = issueCertificate(
    { serial: serial(), subject: { commonName }, notBefore, notAfter, publicKey: keys.publicKey, isCa: true },
    { subject: { commonName }, ...keys },
  );
  return { ...keys, commonName, certPem, notAfter };
}

export interface ServingMaterial {
  certPem: string;
  keyPem: string;
  notBefore: number;
  notAfter: number;
}

export function issueServingCert(
  ca: CaMaterial,
  host: string,
  nowMs: number,
  validityMs: number,
  dnsNames: readonly string[],
  ipAddresses: readonly string[],
): ServingMaterial {
  const keys = generateKeyPair();
  const notBefore = nowMs - 3_600_000;
  // Never outlive the CA: a chain is only as valid as its shortest link.
  const notAfter = Math.min(nowMs + validityMs, ca.notAfter);
  const certPem = issueCertificate(
    {
      serial: serial(),
      subject: { commonName: `${host}@${Math.floor(nowMs / 1000)}` },
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      isCa: false,
      dnsNames,
      ipAddresses,
      extKeyUsage: ['serverAuth'],
    },
    { subject: { commonName: ca.commonName }, privateKey: ca.privateKey, publicKey: ca.publicKey },
  );
  const keyPem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem, keyPem, notBefore, notAfter };
}

/** Parses a PEM bundle into its certificates (comments and blank lines ignored). */
export function parseCertBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}
