import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { connect, createServer } from 'node:tls';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../clock.js';
import { SelfSignedCertManager, serviceDnsNames } from './cert-manager.js';
import { parseCertBundle } from './self-signed.js';

const logger = pino({ level: 'silent' });
const HOUR = 3_600_000;

async function servedCert(certPem: string, keyPem: string, caPem: string, host: string): Promise<string> {
  const server = createServer({ cert: certPem, key: keyPem }, (s) => s.end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  try {
    const socket = connect({ host: '127.0.0.1', port, servername: host, ca: caPem });
    await once(socket, 'secureConnect');
    const serial = socket.getPeerX509Certificate()!.serialNumber;
    socket.destroy();
    return serial;
  } finally {
    server.close();
  }
}

describe('SelfSignedCertManager', () => {
  it('issues a CA-signed serving certificate that TLS clients accept for the Service names', async () => {
    const clock = new FakeClock(Date.now());
    const m = new SelfSignedCertManager({
      logger,
      clock,
      dnsNames: serviceDnsNames('antrea', 'kube-system'),
      ipAddresses: ['127.0.0.1', '2001:db8::1'],
    });
    const { certPem, keyPem, caBundlePem } = m.current();
    const cert = new X509Certificate(certPem);
    const [ca] = parseCertBundle(caBundlePem);
    expect(ca!.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(ca!)).toBe(true);
    expect(cert.verify(ca!.publicKey)).toBe(true);
    expect(cert.subjectAltName).toContain('DNS:antrea.kube-system.svc');
    expect(cert.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(cert.subjectAltName).toContain('IP Address:2001:DB8:0:0:0:0:0:1');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(cert.checkHost('antrea.kube-system.svc')).toBe('antrea.kube-system.svc');
    await expect(servedCert(certPem, keyPem, caBundlePem, 'antrea.kube-system.svc')).resolves.toBe(
      cert.serialNumber,
    );
  });

  it('rotates the serving certificate before expiry, keeps the CA, and notifies listeners', () => {
    const clock = new FakeClock(Date.now());
    const m = new SelfSignedCertManager({
      logger,
      clock,
      dnsNames: ['antrea'],
      validityMs: 10 * HOUR,
      renewBeforeMs: 2 * HOUR,
    });
    const first = m.current();
    const seen: string[] = [];
    m.onChange((c) => seen.push(c.certPem));
    clock.advance(7 * HOUR);
    expect(m.checkRotation()).toBe(false);
    clock.advance(HOUR + 1000);
    expect(m.checkRotation()).toBe(true);
    const second = m.current();
    expect(seen).toEqual([second.certPem]);
    expect(second.certPem).not.toBe(first.certPem);
    expect(second.caBundlePem).toBe(first.caBundlePem);
    expect(Date.parse(new X509Certificate(second.certPem).validTo)).toBeGreaterThan(clock.now() + 9 * HOUR);
  });

  it('replaces a CA near its own expiry and keeps the old one in the bundle while it is valid', () => {
    const clock = new FakeClock(Date.now());
    const m = new SelfSignedCertManager({
      logger,
      clock,
      dnsNames: ['antrea'],
      validityMs: 10 * HOUR,
      caValidityMs: 12 * HOUR,
      renewBeforeMs: 2 * HOUR,
    });
    const oldCa = parseCertBundle(m.current().caBundlePem);
    expect(oldCa).toHaveLength(1);
    clock.advance(9 * HOUR);
    expect(m.checkRotation()).toBe(true);
    const bundle = parseCertBundle(m.current().caBundlePem);
    expect(bundle).toHaveLength(2);
    expect(bundle[1]!.fingerprint256).toBe(oldCa[0]!.fingerprint256);
    expect(new X509Certificate(m.current().certPem).checkIssued(bundle[0]!)).toBe(true);
  });
});
