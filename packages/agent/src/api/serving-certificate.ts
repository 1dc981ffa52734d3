// The agent API's self-signed certificate, named as Antrea's agent names it (client-go's
// self-signed pair for "localhost" with 127.0.0.1 and ::1): a client that dials a Node IP verifies
// it with servername "localhost" and the CA the agent publishes in AntreaAgentInfo.apiCABundle.
import { type Clock, SelfSignedCertManager, type ServingCertificate } from '@antrea-ts/apiserver';
import type { Logger } from 'pino';

export function agentApiCertificates(logger: Logger, clock?: Clock): SelfSignedCertManager {
  return new SelfSignedCertManager({
    logger,
    ...(clock ? { clock } : {}),
    host: 'localhost',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1', '::1'],
  });
}

/** AntreaAgentInfo.apiCABundle: the PEM bundle clients should trust, base64 (a `[]byte` field). */
export function apiCaBundle(cert: ServingCertificate): string {
  return Buffer.from(cert.caBundlePem).toString('base64');
}
