import type { X509Certificate } from 'node:crypto';
import { parseCertBundle } from '../certs/self-signed.js';
import { ApiServerError } from '../errors.js';
import { nodeNameFromExtra, type UserInfo, withAuthenticatedGroup } from './user.js';

/**
 * The delegated-authentication settings kube-apiserver publishes in
 * kube-system/extension-apiserver-authentication (its --client-ca-file and --requestheader-* flags).
 */
export interface AuthenticationConfig {
  /** CAs for ordinary client certificates (CN = user, O = groups). */
  clientCAs: X509Certificate[];
  /** CAs for the front proxy (the aggregator) that asserts users in headers. */
  requestHeaderCAs: X509Certificate[];
  /** Common names a front-proxy certificate may have; empty means any cert from requestHeaderCAs. */
  allowedNames: string[];
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export const EMPTY_AUTHENTICATION_CONFIG: AuthenticationConfig = {
  clientCAs: [],
  requestHeaderCAs: [],
  allowedNames: [],
  usernameHeaders: [],
  uidHeaders: [],
  groupHeaders: [],
  extraHeaderPrefixes: [],
};

function jsonList(data: Record<string, string>, key: string): string[] {
  const raw = data[key];
  if (raw === undefined || raw === '') return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    if (Array.isArray(parsed) && parsed.every((s) => typeof s === 'string')) return parsed;
  } catch {
    // reported below
  }
  throw new ApiServerError('APISERVER_AUTHN_CONFIG_INVALID', `${key} is not a JSON list of strings`);
}

/** Parses the ConfigMap's data. */
export function parseAuthenticationConfig(data: Record<string, string>): AuthenticationConfig {
  try {
    return {
      clientCAs: parseCertBundle(data['client-ca-file'] ?? ''),
      requestHeaderCAs: parseCertBundle(data['requestheader-client-ca-file'] ?? ''),
      allowedNames: jsonList(data, 'requestheader-allowed-names'),
      usernameHeaders: jsonList(data, 'requestheader-username-headers'),
      uidHeaders: jsonList(data, 'requestheader-uid-headers'),
      groupHeaders: jsonList(data, 'requestheader-group-headers'),
      extraHeaderPrefixes: jsonList(data, 'requestheader-extra-headers-prefix'),
    };
  } catch (error) {
    if (error instanceof ApiServerError) throw error;
    throw new ApiServerError('APISERVER_AUTHN_CONFIG_INVALID', 'bad certificate in authentication config', {
      cause: error,
    });
  }
}

/** Request headers with every value of repeated headers (IncomingMessage.headersDistinct). */
export type Headers = Record<string, string[] | undefined>;

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/**
 * True if `cert` was issued by one of `cas`, is within its validity at `nowMs` and may be used for
 * client authentication. Only direct issuance: neither kube's front-proxy nor its client CA
 * hands out intermediates in the setups we target.
 */
export function verifyClientCert(
  cert: X509Certificate,
  cas: readonly X509Certificate[],
  nowMs: number,
): boolean {
  if (nowMs < Date.parse(cert.validFrom) || nowMs > Date.parse(cert.validTo)) return false;
  const eku = cert.keyUsage;
  if (eku && eku.length > 0 && !eku.includes(CLIENT_AUTH)) return false;
  return cas.some((ca) => {
    try {
      return cert.checkIssued(ca) && cert.verify(ca.publicKey);
    } catch {
      return false;
    }
  });
}

function subjectField(subject: string, field: string): string[] {
  return subject
    .split('\n')
    .filter((line) => line.startsWith(`${field}=`))
    .map((line) => line.slice(field.length + 1));
}

function firstHeader(headers: Headers, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headers[name.toLowerCase()]?.find((v) => v !== '');
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Result of looking at a client certificate: a user, `null` (a cert we reject), or undefined (none). */
export function authenticateClientCert(
  cert: X509Certificate | undefined,
  headers: Headers,
  config: AuthenticationConfig,
  nowMs: number,
): UserInfo | null | undefined {
  if (!cert) return undefined;
  if (config.requestHeaderCAs.length > 0 && verifyClientCert(cert, config.requestHeaderCAs, nowMs)) {
    const cn = subjectField(cert.subject, 'CN')[0] ?? '';
    if (config.allowedNames.length > 0 && !config.allowedNames.includes(cn)) return null;
    const username = firstHeader(headers, config.usernameHeaders);
    if (!username) return null;
    const uid = firstHeader(headers, config.uidHeaders);
    const groups = config.groupHeaders.flatMap((h) => headers[h.toLowerCase()] ?? []);
    const extra: Record<string, string[]> = {};
    for (const prefix of config.extraHeaderPrefixes) {
      const p = prefix.toLowerCase();
      for (const [name, values] of Object.entries(headers)) {
        if (!name.startsWith(p) || name.length === p.length) continue;
        // Keys are sent lower-cased and percent-encoded (RFC 7230 token rules), like kube does.
        const key = decodeURIComponent(name.slice(p.length)).toLowerCase();
        extra[key] = [...(extra[key] ?? []), ...(values ?? [])];
      }
    }
    const nodeName = nodeNameFromExtra(extra);
    return {
      username,
      ...(uid ? { uid } : {}),
      groups: withAuthenticatedGroup(groups),
      extra,
      ...(nodeName ? { nodeName } : {}),
      authenticatedBy: 'request-header',
    };
  }
  if (config.clientCAs.length > 0 && verifyClientCert(cert, config.clientCAs, nowMs)) {
    const username = subjectField(cert.subject, 'CN')[0];
    if (!username) return null;
    return {
      username,
      groups: withAuthenticatedGroup(subjectField(cert.subject, 'O')),
      extra: {},
      authenticatedBy: 'client-certificate',
    };
  }
  return null;
}

/** Headers a proxied identity may arrive in; stripped from anything not from the front proxy. */
export function identityHeaderNames(config: AuthenticationConfig): string[] {
  return [...config.usernameHeaders, ...config.uidHeaders, ...config.groupHeaders].map((h) =>
    h.toLowerCase(),
  );
}
