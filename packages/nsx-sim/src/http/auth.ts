import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NsxApiError } from '../errors.js';
import type { SimStore } from '../state/sim-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Authenticated NSX user: "admin", a principal identity name, or "sim" for /sim/ calls. */
    nsxUser: string;
  }
}

export interface AuthOptions {
  adminUser: string;
  adminPassword: string;
}

/** Returns the DER bytes of the client certificate of a request, if any. */
export type ClientCertificateSource = (req: FastifyRequest) => Buffer | undefined;

export const tlsClientCertificate: ClientCertificateSource = (req) => {
  const socket = req.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const cert = socket.getPeerCertificate(false);
  return cert && Buffer.isBuffer(cert.raw) && cert.raw.length > 0 ? cert.raw : undefined;
};

const AUTH_FAILED = 'The credentials were incorrect or the account specified has been locked.';

/**
 * Authentication like NSX Manager: HTTP basic for the admin user, or a client certificate that belongs
 * to a principal identity. With `auth === false` every request is "admin". /sim/ is never authenticated.
 */
export function installAuth(
  app: FastifyInstance,
  store: SimStore,
  auth: AuthOptions | false,
  clientCertificate: ClientCertificateSource,
): void {
  app.decorateRequest('nsxUser', '');
  app.addHook('onRequest', async (req) => {
    if (req.url.startsWith('/sim/')) {
      req.nsxUser = 'sim';
      return;
    }
    if (auth === false) {
      req.nsxUser = 'admin';
      return;
    }
    const header = req.headers.authorization;
    if (header?.startsWith('Basic ')) {
      const [user, ...rest] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
      if (user === auth.adminUser && rest.join(':') === auth.adminPassword) {
        req.nsxUser = user;
        return;
      }
      throw new NsxApiError('NSX_AUTH_FAILED', AUTH_FAILED);
    }
    const der = clientCertificate(req);
    if (der) {
      let fp: string;
      try {
        fp = new X509Certificate(der).fingerprint256;
      } catch {
        throw new NsxApiError('NSX_AUTH_FAILED', AUTH_FAILED);
      }
      const pi = Object.values(store.state.principal_identities).find((p) => p.fingerprint256 === fp);
      if (pi) {
        req.nsxUser = pi.name;
        return;
      }
    }
    throw new NsxApiError('NSX_AUTH_FAILED', AUTH_FAILED);
  });
}
