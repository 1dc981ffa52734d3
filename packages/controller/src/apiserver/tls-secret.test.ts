import { FakeClock, SelfSignedCertManager, serviceDnsNames } from '@antrea-ts/apiserver';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type SecretClient, TlsSecretPersistence } from './tls-secret.js';

const logger = pino({ level: 'silent' });
const DAY = 86_400_000;

/** Secrets in memory; `failures` makes the next puts throw. */
class MemorySecrets implements SecretClient {
  readonly data = new Map<string, Record<string, string>>();
  puts = 0;
  failures = 0;
  async get(namespace: string, name: string) {
    const d = this.data.get(`${namespace}/${name}`);
    return d ? { ...d } : undefined;
  }
  async put(namespace: string, name: string, data: Record<string, string>) {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('forbidden');
    }
    this.puts++;
    this.data.set(`${namespace}/${name}`, { ...data });
  }
}

function manager(clock = new FakeClock(Date.now())) {
  return new SelfSignedCertManager({ logger, clock, dnsNames: serviceDnsNames('antrea', 'kube-system') });
}

function persistence(secrets: SecretClient, certificates: SelfSignedCertManager, retryMs = 30_000) {
  return new TlsSecretPersistence({ logger, secrets, certificates, namespace: 'kube-system', retryMs });
}

describe('TlsSecretPersistence', () => {
  it('saves the first run’s certificates; the next run adopts them and writes nothing', async () => {
    const secrets = new MemorySecrets();
    const first = manager();
    const p1 = persistence(secrets, first);
    await p1.start();
    p1.stop();
    const saved = secrets.data.get('kube-system/antrea-controller-tls')!;
    expect(Object.keys(saved).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(saved['tls.crt']).toBe(first.current().certPem);
    expect(saved['ca.crt']).toBe(first.current().caBundlePem);

    const second = manager();
    const p2 = persistence(secrets, second);
    await p2.start();
    p2.stop();
    expect(second.current().certPem).toBe(first.current().certPem);
    expect(second.current().caBundlePem).toBe(first.current().caBundlePem);
    expect(secrets.puts).toBe(1);
  });

  it('replaces an unusable Secret with the generated certificates', async () => {
    const secrets = new MemorySecrets();
    secrets.data.set('kube-system/antrea-controller-tls', { 'tls.crt': 'x', 'tls.key': 'y' });
    const m = manager();
    const own = m.current().certPem;
    const p = persistence(secrets, m);
    await p.start();
    p.stop();
    expect(m.current().certPem).toBe(own);
    expect(secrets.data.get('kube-system/antrea-controller-tls')!['tls.crt']).toBe(own);
  });

  it('persists rotations, and retries a save the API refused', async () => {
    const clock = new FakeClock(Date.now());
    const secrets = new MemorySecrets();
    const m = manager(clock);
    secrets.failures = 1;
    const p = persistence(secrets, m, 10);
    await p.start();
    expect(secrets.data.size).toBe(0);
    await expect
      .poll(() => secrets.data.get('kube-system/antrea-controller-tls')?.['tls.crt'])
      .toBe(m.current().certPem);
    const before = m.current().certPem;
    clock.advance(340 * DAY);
    expect(m.checkRotation()).toBe(true);
    expect(m.current().certPem).not.toBe(before);
    await expect
      .poll(() => secrets.data.get('kube-system/antrea-controller-tls')?.['tls.crt'])
      .toBe(m.current().certPem);
    p.stop();
  });

  it('adopts a rotation another instance wrote to the Secret, without writing it back', async () => {
    const secrets = new MemorySecrets();
    const clockA = new FakeClock(Date.now());
    const a = manager(clockA);
    const b = manager();
    const pa = persistence(secrets, a);
    const pb = persistence(secrets, b);
    await pa.start();
    await pb.start();
    expect(b.current().certPem).toBe(a.current().certPem);
    expect(await pb.resync()).toBe(false);
    clockA.advance(340 * DAY);
    a.checkRotation();
    await expect
      .poll(() => secrets.data.get('kube-system/antrea-controller-tls')?.['tls.crt'])
      .toBe(a.current().certPem);
    const puts = secrets.puts;
    expect(await pb.resync()).toBe(true);
    expect(b.current().certPem).toBe(a.current().certPem);
    expect(b.current().caBundlePem).toBe(a.current().caBundlePem);
    expect(secrets.puts).toBe(puts);
    pa.stop();
    pb.stop();
  });
});
