import { type CertFiles, TestPki } from './pki.js';

/** A cluster's certificates: the files kube-apiserver starts with, and an admin client. */
export interface KubePki {
  /** Signs the serving certificate and client certificates (admin). */
  ca: CertFiles;
  /** Signs the client certificate the aggregation layer presents to extension API servers. */
  frontProxyCa: CertFiles;
  /** Service-account token signing key. */
  saKey: { key: string; pub: string };
  serving: CertFiles;
  /** system:masters client. */
  admin: CertFiles;
  frontProxyClient: CertFiles;
}

/**
 * Creates a cluster's PKI in `dir`. The serving certificate covers the in-cluster names, loopback,
 * the bind address and the first address of the Service range (the `kubernetes` Service).
 */
export async function createKubePki(
  dir: string,
  options: { bindAddress: string; caCommonName: string; frontProxyCaCommonName: string },
): Promise<KubePki> {
  const pki = new TestPki(dir);
  const [ca, frontProxyCa, saKey] = await Promise.all([
    pki.createCa('ca', options.caCommonName),
    pki.createCa('front-proxy-ca', options.frontProxyCaCommonName),
    pki.createSigningKey('sa'),
  ]);
  const [serving, admin, frontProxyClient] = await Promise.all([
    pki.issue(ca, {
      name: 'apiserver',
      commonName: 'kube-apiserver',
      usage: 'server',
      dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
      ipAddresses: [...new Set(['127.0.0.1', options.bindAddress, '10.96.0.1'])],
    }),
    pki.issue(ca, { name: 'admin', commonName: 'admin', organizations: ['system:masters'], usage: 'client' }),
    pki.issue(frontProxyCa, {
      name: 'front-proxy-client',
      commonName: 'front-proxy-client',
      usage: 'client',
    }),
  ]);
  return { ca, frontProxyCa, saKey, serving, admin, frontProxyClient };
}
