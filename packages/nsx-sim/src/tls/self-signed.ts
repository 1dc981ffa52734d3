import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TlsSetupError } from '../errors.js';

const run = promisify(execFile);

export interface GeneratedTls {
  caCert: string;
  cert: string;
  key: string;
  dir: string;
}

/**
 * Generates a self-signed CA and a server certificate signed by it (openssl CLI), for names
 * `hostnames` (DNS) and `ips`. Files go to `dir` (ca.crt, ca.key, tls.crt, tls.key).
 */
export async function generateSelfSignedTls(
  dir: string,
  hostnames: string[] = ['localhost'],
  ips: string[] = ['127.0.0.1'],
  openssl = 'openssl',
): Promise<GeneratedTls> {
  const f = (n: string) => join(dir, n);
  const san = [...hostnames.map((h) => `DNS:${h}`), ...ips.map((i) => `IP:${i}`)].join(',');
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await run(openssl, [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '825',
      '-subj',
      '/CN=nsx-sim CA',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.crt'),
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    await run(openssl, [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${hostnames[0] ?? 'localhost'}`,
      '-keyout',
      f('tls.key'),
      '-out',
      f('tls.csr'),
    ]);
    await writeFile(
      f('ext.cnf'),
      `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n`,
    );
    await run(openssl, [
      'x509',
      '-req',
      '-in',
      f('tls.csr'),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '825',
      '-extfile',
      f('ext.cnf'),
      '-out',
      f('tls.crt'),
    ]);
    const [caCert, cert, key] = await Promise.all(
      ['ca.crt', 'tls.crt', 'tls.key'].map((n) => readFile(f(n), 'utf8')),
    );
    return { caCert: caCert ?? '', cert: cert ?? '', key: key ?? '', dir };
  } catch (err) {
    throw new TlsSetupError(`generating TLS material in ${dir} with ${openssl} failed`, { cause: err });
  }
}

/** Reuses ca.crt/tls.crt/tls.key in `dir` when all three exist (stable trust across restarts), else generates. */
export async function loadOrGenerateTls(
  dir: string,
  hostnames: string[] = ['localhost'],
  ips: string[] = ['127.0.0.1'],
  openssl = 'openssl',
): Promise<GeneratedTls & { reused: boolean }> {
  try {
    const [caCert, cert, key] = await Promise.all(
      ['ca.crt', 'tls.crt', 'tls.key'].map((n) => readFile(join(dir, n), 'utf8')),
    );
    if (caCert && cert && key) return { caCert, cert, key, dir, reused: true };
  } catch {
    // fall through: generate
  }
  return { ...(await generateSelfSignedTls(dir, hostnames, ips, openssl)), reused: false };
}

/** Generates a self-signed client certificate with CN `cn` (what a cluster's PI uses). Test helper. */
export async function generateClientCertificate(
  dir: string,
  cn: string,
  openssl = 'openssl',
): Promise<{ cert: string; key: string }> {
  const f = (n: string) => join(dir, n);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await run(openssl, [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '365',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      f(`${cn}.key`),
      '-out',
      f(`${cn}.crt`),
    ]);
    const [cert, key] = await Promise.all([
      readFile(f(`${cn}.crt`), 'utf8'),
      readFile(f(`${cn}.key`), 'utf8'),
    ]);
    return { cert, key };
  } catch (err) {
    throw new TlsSetupError(`generating client certificate ${cn} failed`, { cause: err });
  }
}
