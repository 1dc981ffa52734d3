import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './exec.js';

/** A key pair and certificate on disk, as PEM files. */
export interface CertFiles {
  cert: string;
  key: string;
}

export interface CertRequest {
  /** File name stem under the PKI dir. */
  name: string;
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client' | 'both';
}

/** `openssl req` arguments for a new, unencrypted P-256 key. */
const NEW_P256_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * Test PKI made with the openssl CLI (Node has no API to issue certificates). ECDSA P-256 keys keep
 * generation fast; the certificates live two days, longer than any test run.
 */
export class TestPki {
  constructor(private readonly dir: string) {}

  async createCa(name: string, commonName: string): Promise<CertFiles> {
    const files = this.files(name);
    await run([
      'openssl',
      'req',
      '-x509',
      ...NEW_P256_KEY,
      '-keyout',
      files.key,
      '-out',
      files.cert,
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    return files;
  }

  async issue(ca: CertFiles, request: CertRequest): Promise<CertFiles> {
    const files = this.files(request.name);
    const csr = join(this.dir, `${request.name}.csr`);
    const ext = join(this.dir, `${request.name}.ext`);
    const subject = [
      ...(request.organizations ?? []).map((o) => `/O=${o}`),
      `/CN=${request.commonName}`,
    ].join('');
    await run([
      'openssl',
      'req',
      '-new',
      ...NEW_P256_KEY,
      '-keyout',
      files.key,
      '-out',
      csr,
      '-subj',
      subject,
    ]);
    const usages = { server: 'serverAuth', client: 'clientAuth', both: 'serverAuth,clientAuth' }[
      request.usage
    ];
    const sans = [
      ...(request.dnsNames ?? []).map((d) => `DNS:${d}`),
      ...(request.ipAddresses ?? []).map((ip) => `IP:${ip}`),
    ];
    writeFileSync(
      ext,
      [
        'basicConstraints=CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        `extendedKeyUsage=${usages}`,
        ...(sans.length > 0 ? [`subjectAltName=${sans.join(',')}`] : []),
      ].join('\n'),
    );
    await run([
      'openssl',
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca.cert,
      '-CAkey',
      ca.key,
      // A random serial, not a CA serial file: certificates of one CA are issued in parallel.
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-out',
      files.cert,
      '-days',
      '2',
      '-extfile',
      ext,
    ]);
    return files;
  }

  /** An EC key pair for signing service-account tokens. */
  async createSigningKey(name: string): Promise<{ key: string; pub: string }> {
    const key = join(this.dir, `${name}.key`);
    const pub = join(this.dir, `${name}.pub`);
    await run(['openssl', 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    await run(['openssl', 'ec', '-in', key, '-pubout', '-out', pub]);
    return { key, pub };
  }

  private files(name: string): CertFiles {
    return { cert: join(this.dir, `${name}.crt`), key: join(this.dir, `${name}.key`) };
  }
}
