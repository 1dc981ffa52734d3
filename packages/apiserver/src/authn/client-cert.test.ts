import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCa, generateKeyPair } from '../certs/self-signed.js';
import { issueCertificate } from '../x509/certificate.js';
import { authenticateClientCert, parseAuthenticationConfig } from './client-cert.js';

const now = Date.now();
const frontProxyCa = createCa('front-proxy', now, 3_600_000);
const clientCa = createCa('client', now, 3_600_000);

function cert(
  ca: typeof frontProxyCa,
  subject: { commonName: string; organizations?: string[] },
  extKeyUsage: ('serverAuth' | 'clientAuth')[] = ['clientAuth'],
  notAfter = now + 600_000,
): X509Certificate {
  const keys = generateKeyPair();
  return new X509Certificate(
    issueCertificate(
      {
        serial: Uint8Array.of(1),
        subject,
        notBefore: now - 60_000,
        notAfter,
        publicKey: keys.publicKey,
        isCa: false,
        extKeyUsage,
      },
      { subject: { commonName: ca.commonName }, privateKey: ca.privateKey, publicKey: ca.publicKey },
    ),
  );
}

// What kube-apiserver writes into kube-system/extension-apiserver-authentication.
const config = parseAuthenticationConfig({
  'client-ca-file': clientCa.certPem,
  'requestheader-client-ca-file': frontProxyCa.certPem,
  'requestheader-allowed-names': '["front-proxy-client"]',
  'requestheader-username-headers': '["X-Remote-User"]',
  'requestheader-group-headers': '["X-Remote-Group"]',
  'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
});

describe('client certificate authentication', () => {
  const headers = {
    'x-remote-user': ['alice'],
    'x-remote-group': ['devs', 'system:authenticated'],
    'x-remote-extra-authentication.kubernetes.io%2fnode-name': ['node-a'],
  };

  it('takes the user from the headers of a verified front proxy, decoding extra keys', () => {
    const user = authenticateClientCert(
      cert(frontProxyCa, { commonName: 'front-proxy-client' }),
      headers,
      config,
      now,
    );
    expect(user).toEqual({
      username: 'alice',
      groups: ['devs', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/node-name': ['node-a'] },
      nodeName: 'node-a',
      authenticatedBy: 'request-header',
    });
  });

  it('rejects front-proxy certificates with another name, a server usage, or past expiry', () => {
    expect(
      authenticateClientCert(cert(frontProxyCa, { commonName: 'intruder' }), headers, config, now),
    ).toBeNull();
    expect(
      authenticateClientCert(
        cert(frontProxyCa, { commonName: 'front-proxy-client' }, ['serverAuth']),
        headers,
        config,
        now,
      ),
    ).toBeNull();
    const expired = cert(frontProxyCa, { commonName: 'front-proxy-client' }, ['clientAuth'], now + 1000);
    expect(authenticateClientCert(expired, headers, config, now + 2000)).toBeNull();
  });

  it('authenticates ordinary client certificates as CN with O groups, ignoring identity headers', () => {
    const user = authenticateClientCert(
      cert(clientCa, { commonName: 'bob', organizations: ['ops'] }),
      headers,
      config,
      now,
    );
    expect(user).toEqual({
      username: 'bob',
      groups: ['ops', 'system:authenticated'],
      extra: {},
      authenticatedBy: 'client-certificate',
    });
  });

  it('puts a proxied user in system:authenticated even when the proxy sends no groups', () => {
    const user = authenticateClientCert(
      cert(frontProxyCa, { commonName: 'front-proxy-client' }),
      { 'x-remote-user': ['system:aggregator'] },
      config,
      now,
    );
    expect(user?.groups).toEqual(['system:authenticated']);
  });

  it('reports no certificate as undefined and refuses malformed config', () => {
    expect(authenticateClientCert(undefined, headers, config, now)).toBeUndefined();
    expect(() => parseAuthenticationConfig({ 'requestheader-allowed-names': 'front-proxy-client' })).toThrow(
      expect.objectContaining({ code: 'APISERVER_AUTHN_CONFIG_INVALID' }),
    );
  });
});
