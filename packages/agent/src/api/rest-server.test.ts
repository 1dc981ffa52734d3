import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CertificateSource, ServingCertificate } from '@antrea-ts/apiserver';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentApiSource, buildRestApi } from './rest-server.js';
import { agentApiCertificates } from './serving-certificate.js';

const logger = pino({ level: 'silent' });

/** A certificate source the test rotates by hand. */
class SwitchableCertificates implements CertificateSource {
  readonly listeners = new Set<(cert: ServingCertificate) => void>();
  constructor(public cert: ServingCertificate) {}
  current(): ServingCertificate {
    return this.cert;
  }
  onChange(listener: (cert: ServingCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  rotate(cert: ServingCertificate): void {
    this.cert = cert;
    for (const l of this.listeners) l(cert);
  }
}

/** GET /livez on a new connection, trusting only `ca` (servername localhost, as agent clients dial). */
function livez(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/livez', ca, servername: 'localhost', agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve(text));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('buildRestApi over HTTPS', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => app?.close());

  it('serves the current certificate, follows a rotation on new connections, and unsubscribes on close', async () => {
    const first = agentApiCertificates(logger).current();
    const second = agentApiCertificates(logger).current();
    const certs = new SwitchableCertificates(first);
    app = buildRestApi({ ready: () => true } as AgentApiSource, logger, {
      certificates: certs,
      auth: { loopbackToken: 'loop', logger },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;

    expect(await livez(port, first.caBundlePem)).toBe('ok');
    await expect(livez(port, second.caBundlePem)).rejects.toThrow();
    certs.rotate(second);
    expect(await livez(port, second.caBundlePem)).toBe('ok');
    await expect(livez(port, first.caBundlePem)).rejects.toThrow();

    expect(certs.listeners.size).toBe(1);
    await app.close();
    app = undefined;
    expect(certs.listeners.size).toBe(0);
  });
});
