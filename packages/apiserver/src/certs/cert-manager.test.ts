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

  it('stages a new CA in the bundle before serving from it, and keeps the old one while valid', () => {
    const clock = new FakeClock(Date.now());
    const m = new SelfSignedCertManager({
      logger,
      clock,
      dnsNames: ['antrea'],
      validityMs: 10 * HOUR,
      caValidityMs: 30 * HOUR,
      renewBeforeMs: 2 * HOUR,
      caLeadMs: HOUR,
    });
    const bundles: number[] = [];
    m.onChange((c) => bundles.push(parseCertBundle(c.caBundlePem).length));
    const [oldCa] = parseCertBundle(m.current().caBundlePem);
    const firstCert = m.current().certPem;
    // 19.5 h in, the CA (30 h) could not cover another 10 h certificate after this one: stage.
    clock.advance(19.5 * HOUR);
    expect(m.checkRotation()).toBe(true);
    const staged = parseCertBundle(m.current().caBundlePem);
    expect(staged.map((c) => c.fingerprint256)).toEqual([oldCa!.fingerprint256, expect.any(String)]);
    // The serving certificate was due as well, but the next CA was only just published: the
    // old CA signs it once more.
    expect(firstCert).not.toBe(m.current().certPem);
    expect(new X509Certificate(m.current().certPem).checkIssued(oldCa!)).toBe(true);
    const nextCa = staged[1]!;
    // Serving rotation an hour or more later promotes the staged CA.
    clock.advance(HOUR);
    while (new X509Certificate(m.current().certPem).checkIssued(oldCa!)) {
      clock.advance(HOUR);
      m.checkRotation();
    }
    const promoted = parseCertBundle(m.current().caBundlePem);
    expect(promoted.map((c) => c.fingerprint256)).toEqual([nextCa.fingerprint256, oldCa!.fingerprint256]);
    expect(new X509Certificate(m.current().certPem).checkIssued(nextCa)).toBe(true);
    // Once the old CA expires it leaves the bundle.
    clock.set(Date.parse(oldCa!.validTo) + 1000);
    m.checkRotation();
    expect(parseCertBundle(m.current().caBundlePem).map((c) => c.fingerprint256)).not.toContain(
      oldCa!.fingerprint256,
    );
    expect(bundles).toContain(2);
  });
});

describe('SelfSignedCertManager persistence', () => {
  const names = serviceDnsNames('antrea', 'kube-system');

  it('a new manager that restores an exported state serves the same certificate under the same CA', async () => {
    const first = new SelfSignedCertManager({ logger, dnsNames: names, ipAddresses: ['127.0.0.1'] });
    const second = new SelfSignedCertManager({ logger, dnsNames: names, ipAddresses: ['127.0.0.1'] });
    expect(second.current().caBundlePem).not.toBe(first.current().caBundlePem);
    const heard: string[] = [];
    second.onChange((c) => heard.push(c.certPem));
    expect(second.restore(first.exportState())).toBe(true);
    expect(second.current().certPem).toBe(first.current().certPem);
    expect(second.current().caBundlePem).toBe(first.current().caBundlePem);
    expect(heard).toEqual([first.current().certPem]);
    // A client holding the first manager's CA accepts what the second serves.
    const { certPem, keyPem } = second.current();
    await expect(
      servedCert(certPem, keyPem, first.current().caBundlePem, 'antrea.kube-system.svc'),
    ).resolves.toBe(new X509Certificate(first.current().certPem).serialNumber);
  });

  it('reissues from the restored CA when a configured name is missing, and refuses mismatched material', () => {
    const first = new SelfSignedCertManager({ logger, dnsNames: ['antrea'] });
    const second = new SelfSignedCertManager({ logger, dnsNames: names });
    const own = second.current();
    const other = new SelfSignedCertManager({ logger, dnsNames: names }).exportState();
    expect(second.restore({ ...first.exportState(), caKeyPem: other.caKeyPem })).toBe(false);
    expect(second.restore({ ...first.exportState(), caCertPem: other.caCertPem })).toBe(false);
    expect(second.restore({ ...first.exportState(), certPem: 'garbage' })).toBe(false);
    expect(second.current()).toBe(own);
    expect(second.restore(first.exportState())).toBe(true);
    expect(second.current().caBundlePem).toBe(first.current().caBundlePem);
    const reissued = new X509Certificate(second.current().certPem);
    expect(reissued.serialNumber).not.toBe(new X509Certificate(first.current().certPem).serialNumber);
    expect(reissued.subjectAltName).toContain('DNS:antrea.kube-system.svc');
    expect(reissued.verify(parseCertBundle(first.current().caBundlePem)[0]!.publicKey)).toBe(true);
  });

  it('an expired persisted CA is refused', () => {
    const clock = new FakeClock(Date.now());
    const old = new SelfSignedCertManager({ logger, clock, dnsNames: names, caValidityMs: 400 * 24 * HOUR });
    const state = old.exportState();
    clock.advance(401 * 24 * HOUR);
    const fresh = new SelfSignedCertManager({ logger, clock, dnsNames: names });
    expect(fresh.restore(state)).toBe(false);
  });
});
