import { createHash, type KeyObject, sign } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { ApiServerError } from '../errors.js';
import {
  bitString,
  bool,
  explicit,
  implicitPrimitive,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der.js';

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

export interface CertificateTemplate {
  /** 1..20 bytes, positive. */
  serial: Uint8Array;
  subject: { commonName: string; organizations?: readonly string[] };
  notBefore: number;
  notAfter: number;
  /** EC P-256 public key of the subject. */
  publicKey: KeyObject;
  isCa: boolean;
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
  extKeyUsage?: readonly ('serverAuth' | 'clientAuth')[];
}

export interface Issuer {
  subject: { commonName: string; organizations?: readonly string[] };
  /** EC P-256 private key that signs. */
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function name(subject: { commonName: string; organizations?: readonly string[] }): Uint8Array {
  const rdn = (type: string, value: string) => set(sequence(oid(type), utf8String(value)));
  return sequence(
    ...(subject.organizations ?? []).map((o) => rdn(OID.organization, o)),
    rdn(OID.commonName, subject.commonName),
  );
}

function spki(key: KeyObject): Uint8Array {
  return new Uint8Array(key.export({ type: 'spki', format: 'der' }));
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey BIT STRING contents (for an EC key, the point). */
function keyId(key: KeyObject): Uint8Array {
  const der = spki(key);
  // P-256 SPKI is a fixed 91-byte structure whose last 65 bytes are the uncompressed point.
  return new Uint8Array(
    createHash('sha1')
      .update(der.subarray(der.length - 65))
      .digest(),
  );
}

function ipBytes(ip: string): Uint8Array {
  if (isIPv4(ip)) return Uint8Array.from(ip.split('.').map(Number));
  if (!isIPv6(ip)) throw new ApiServerError('APISERVER_CERT_INVALID', `not an IP address: ${ip}`);
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 0xff;
  });
  return out;
}

function extension(id: string, critical: boolean, value: Uint8Array): Uint8Array {
  return sequence(oid(id), ...(critical ? [bool(true)] : []), octetString(value));
}

/** Builds and signs an X.509 v3 certificate (ECDSA with SHA-256); returns PEM. */
export function issueCertificate(template: CertificateTemplate, issuer: Issuer): string {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  // keyUsage bits: digitalSignature(0) for TLS with ECDHE; keyCertSign(5) and cRLSign(6) for CAs.
  const keyUsage = template.isCa ? bitString(Uint8Array.of(0x86), 1) : bitString(Uint8Array.of(0x80), 7);
  const sans = [
    ...(template.dnsNames ?? []).map((d) => implicitPrimitive(2, new TextEncoder().encode(d))),
    ...(template.ipAddresses ?? []).map((ip) => implicitPrimitive(7, ipBytes(ip))),
  ];
  const extensions = [
    extension(OID.basicConstraints, true, template.isCa ? sequence(bool(true)) : sequence()),
    extension(OID.keyUsage, true, keyUsage),
    extension(OID.subjectKeyIdentifier, false, octetString(keyId(template.publicKey))),
    extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyId(issuer.publicKey)))),
    ...(template.extKeyUsage?.length
      ? [extension(OID.extKeyUsage, false, sequence(...template.extKeyUsage.map((u) => oid(OID[u]))))]
      : []),
    ...(sans.length > 0 ? [extension(OID.subjectAltName, false, sequence(...sans))] : []),
  ];
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(template.serial),
    algorithm,
    name(issuer.subject),
    sequence(time(template.notBefore), time(template.notAfter)),
    name(template.subject),
    spki(template.publicKey),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: issuer.privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, algorithm, bitString(new Uint8Array(signature)));
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
