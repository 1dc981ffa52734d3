// The pure half of an SFTP upload: where the file goes (Antrea's fileServer.url forms) and which
// host key the server must present (spec.fileServer.hostPublicKey). No sockets here.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { AgentError } from '../errors.js';
import type { Ssh2 } from './ssh2-module.js';

/** Antrea's port when the URL names none would be an error there (Go dials "host" without a port); 22 is what users mean. */
export const SFTP_DEFAULT_PORT = 22;

export interface SftpTarget {
  readonly host: string;
  readonly port: number;
  /** The URL's path: the directory the file goes to ('' = the login directory). */
  readonly directory: string;
  /** directory joined with the file name, as the SFTP server is asked to create it. */
  readonly path: string;
  /** host:port for messages. */
  readonly address: string;
}

const fail = (message: string) => new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', message);

/**
 * `sftp://host[:port]/dir` or, as Antrea also accepts, `host[:port]/dir` without a scheme. The path
 * is a directory: the file is written as `<dir>/<fileName>`. A user in the URL is ignored; the
 * credentials come from the collection's Secret.
 */
export function sftpTarget(url: string, fileName: string): SftpTarget {
  const withScheme = url.includes('://') ? url : `sftp://${url}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    throw fail(`bad file server URL ${url}`);
  }
  if (parsed.protocol !== 'sftp:') throw fail(`not an sftp:// file server URL: ${url}`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw fail(`file server URL ${url} names no host`);
  const port = parsed.port === '' ? SFTP_DEFAULT_PORT : Number(parsed.port);
  const directory = decodeURIComponent(parsed.pathname);
  return {
    host,
    port,
    directory,
    path: directory === '' ? fileName : posix.join(directory, fileName),
    address: `${parsed.hostname}:${port}`,
  };
}

/** The one host key an upload accepts. */
export interface HostKeyPin {
  /** The key's type as SSH names it (ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256...). */
  readonly type: string;
  /** The key in SSH wire format, as the server sends it during key exchange. */
  readonly key: Buffer;
  /** SHA256:<base64>, as ssh-keygen -l prints it. */
  readonly fingerprint: string;
  /**
   * Host key algorithms to offer: only those of the pinned key, so a server that also has keys of
   * other types presents this one (Antrea does the same).
   */
  readonly algorithms: string[];
}

export function keyFingerprint(key: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/**
 * spec.fileServer.hostPublicKey (SSH wire format: the base64 field of an authorized_keys or
 * ssh-keyscan line, decoded) as a pin; none given: undefined, and the upload accepts any host key,
 * as Antrea does.
 */
export function hostKeyPin(
  hostPublicKey: Uint8Array | undefined,
  parseKey: Ssh2['utils']['parseKey'],
): HostKeyPin | undefined {
  if (hostPublicKey === undefined || hostPublicKey.length === 0) return undefined;
  const key = Buffer.from(hostPublicKey);
  const parsed = parseKey(key);
  if (parsed instanceof Error || parsed.isPrivateKey() || !parsed.getPublicSSH().equals(key)) {
    const why = parsed instanceof Error ? parsed.message : 'not an SSH public key in wire format';
    throw fail(`invalid host public key: ${why}`);
  }
  const type = parsed.type;
  return {
    type,
    key,
    fingerprint: keyFingerprint(key),
    algorithms: type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [type],
  };
}
