// SupportBundleCollection uploads over SFTP, as Antrea's agent does (pkg/util/sftp): password
// authentication with the collection's BasicAuthentication credentials, the host key pinned to
// spec.fileServer.hostPublicKey when one is given (any key accepted otherwise), the archive written
// as <url path>/<file name>, five attempts five seconds apart. Where Antrea's final error says only
// how many attempts failed, ours also says why the last one did.
import { connect, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Client, ServerHostKeyAlgorithm, SFTPWrapper } from 'ssh2';
import { AgentError } from '../errors.js';
import type { BundleFileServer, BundleServerAuth, BundleUploader } from './bundle-uploader.js';
import { type HostKeyPin, hostKeyPin, keyFingerprint, type SftpTarget, sftpTarget } from './sftp-target.js';
import { loadSsh2 } from './ssh2-module.js';

export interface SftpUploaderOptions {
  /** Attempts per upload (Antrea: 5). */
  readonly attempts?: number;
  /** Pause between attempts (Antrea: 5 s). */
  readonly retryDelayMs?: number;
  /** TCP connect (Antrea's ssh ClientConfig.Timeout: 1 s). */
  readonly connectTimeoutMs?: number;
  /** Key exchange and authentication, once connected. */
  readonly handshakeTimeoutMs?: number;
  /** One attempt as a whole, connect to close. */
  readonly attemptTimeoutMs?: number;
  readonly logger?: Logger;
}

/** SSH_FX_* status codes of SFTP v3 that get their own message. */
const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;
/** Bytes per SFTP write request (OpenSSH's sftp client uses 32 KiB). */
const WRITE_CHUNK = 32 * 1024;
const WRITES_IN_FLIGHT = 16;

/** Why one attempt failed, in words for the collection's status. */
class AttemptError extends Error {}

export class SftpBundleUploader implements BundleUploader {
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly connectTimeoutMs: number;
  private readonly handshakeTimeoutMs: number;
  private readonly attemptTimeoutMs: number;
  private readonly log: Logger | undefined;

  constructor(o: SftpUploaderOptions = {}) {
    this.attempts = Math.max(1, o.attempts ?? 5);
    this.retryDelayMs = o.retryDelayMs ?? 5_000;
    this.connectTimeoutMs = o.connectTimeoutMs ?? 1_000;
    this.handshakeTimeoutMs = o.handshakeTimeoutMs ?? 20_000;
    this.attemptTimeoutMs = o.attemptTimeoutMs ?? 120_000;
    this.log = o.logger?.child({ component: 'sftp-uploader' });
  }

  async upload(
    fileServer: BundleFileServer,
    auth: BundleServerAuth,
    fileName: string,
    archive: Buffer,
  ): Promise<void> {
    const target = sftpTarget(fileServer.url, fileName);
    const ssh2 = await loadSsh2();
    const pin = hostKeyPin(fileServer.hostPublicKey, ssh2.utils.parseKey);
    const basic = auth.basicAuthentication;
    if (basic === undefined) {
      throw new AgentError(
        'AGENT_BUNDLE_UPLOAD_FAILED',
        'sftp upload needs BasicAuthentication (username and password in the authentication Secret)',
      );
    }
    if (pin === undefined) {
      this.log?.warn({ server: target.address }, 'no hostPublicKey given: accepting any SSH host key');
    }
    let last: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      try {
        await this.attempt(target, pin, basic.username ?? '', basic.password ?? '', archive);
        this.log?.info({ path: target.path, server: target.address, attempt }, 'uploaded over sftp');
        return;
      } catch (err) {
        last = err;
        this.log?.warn({ err, server: target.address, attempt }, 'sftp upload attempt failed');
        if (attempt < this.attempts) await new Promise((r) => setTimeout(r, this.retryDelayMs));
      }
    }
    const why = last instanceof Error ? last.message : String(last);
    throw new AgentError(
      'AGENT_BUNDLE_UPLOAD_FAILED',
      `failed to upload file after ${this.attempts} attempts: ${why}`,
      { cause: last },
    );
  }

  /** One connection: connect, authenticate, write the file, close. */
  private async attempt(
    target: SftpTarget,
    pin: HostKeyPin | undefined,
    username: string,
    password: string,
    archive: Buffer,
  ): Promise<void> {
    const sock = await this.connectTcp(target);
    const client = new (await loadSsh2()).Client();
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      client.destroy();
    }, this.attemptTimeoutMs);
    try {
      await new Promise<void>((resolve, reject) => {
        let presented: Buffer | undefined;
        const settle = (err?: Error) => (err ? reject(err) : resolve());
        client.once('ready', () => {
          writeFile(client, target, archive).then(() => settle(), settle);
        });
        client.on('error', (err: Error & { level?: string }) =>
          settle(connectionError(err, target, username, pin, presented)),
        );
        // After an error or a success this changes nothing: the promise is settled already.
        client.once('close', () =>
          settle(
            new AttemptError(
              expired
                ? `upload to ${target.address} did not finish within ${this.attemptTimeoutMs} ms`
                : `${target.address} closed the connection before the upload finished`,
            ),
          ),
        );
        client.connect({
          sock,
          username,
          password,
          tryKeyboard: false,
          readyTimeout: this.handshakeTimeoutMs,
          hostVerifier: (key: Buffer) => {
            presented = key;
            return pin === undefined || pin.key.equals(key);
          },
          ...(pin ? { algorithms: { serverHostKey: pin.algorithms as ServerHostKeyAlgorithm[] } } : {}),
        });
      });
    } finally {
      clearTimeout(timer);
      client.end();
      sock.destroy();
    }
  }

  private connectTcp(target: SftpTarget): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const sock = connect({ host: target.host, port: target.port });
      const timer = setTimeout(
        () => sock.destroy(new Error(`no TCP connection within ${this.connectTimeoutMs} ms`)),
        this.connectTimeoutMs,
      );
      sock.once('connect', () => {
        clearTimeout(timer);
        // SSH packets are small and answered: Nagle's wait for the peer's delayed ACK cost ~40 ms
        // per request (0.7 MB/s on loopback).
        sock.setNoDelay(true);
        resolve(sock);
      });
      sock.once('error', (err) => {
        clearTimeout(timer);
        reject(new AttemptError(`cannot reach the file server ${target.address}: ${err.message}`));
      });
    });
  }
}

/** The SSH layer's error, said the way a user fixes it. */
function connectionError(
  err: Error & { level?: string },
  target: SftpTarget,
  username: string,
  pin: HostKeyPin | undefined,
  presented: Buffer | undefined,
): Error {
  if (pin && presented && !pin.key.equals(presented)) {
    return new AttemptError(
      `host key mismatch: ${target.address} presented ${keyFingerprint(presented)}, ` +
        `spec.fileServer.hostPublicKey is ${pin.type} ${pin.fingerprint}`,
    );
  }
  if (pin && /host key/i.test(err.message)) {
    return new AttemptError(
      `host key mismatch: ${target.address} has no ${pin.type} host key ` +
        `(spec.fileServer.hostPublicKey is ${pin.type} ${pin.fingerprint}): ${err.message}`,
    );
  }
  if (err.level === 'client-authentication') {
    return new AttemptError(`authentication as "${username}" failed at ${target.address}`);
  }
  if (err.level === 'client-timeout') {
    return new AttemptError(`no SSH handshake with ${target.address}: ${err.message}`);
  }
  return new AttemptError(`SSH connection to ${target.address} failed: ${err.message}`);
}

/** Opens the SFTP channel and writes target.path (created or truncated), closing what it opened. */
async function writeFile(client: Client, target: SftpTarget, archive: Buffer) {
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) =>
    client.sftp((err, s) =>
      err
        ? reject(new AttemptError(`${target.address} offers no SFTP subsystem: ${err.message}`))
        : resolve(s),
    ),
  );
  const handle = await new Promise<Buffer>((resolve, reject) =>
    sftp.open(target.path, 'w', (err, h) => (err ? reject(openError(err, target)) : resolve(h))),
  );
  const step = (what: string, op: (cb: (err: Error | null | undefined) => void) => void) =>
    new Promise<void>((resolve, reject) =>
      op((err) =>
        err
          ? reject(new AttemptError(`${what} ${target.path} on ${target.address} failed: ${err.message}`))
          : resolve(),
      ),
    );
  try {
    // WRITES_IN_FLIGHT requests outstanding, as OpenSSH's sftp keeps several: one at a time waits a
    // round trip per chunk.
    let next = 0;
    const writer = async () => {
      while (next < archive.length) {
        const at = next;
        const len = Math.min(WRITE_CHUNK, archive.length - at);
        next += len;
        await step('writing', (cb) => sftp.write(handle, archive, at, len, at, cb));
      }
    };
    await Promise.all(Array.from({ length: WRITES_IN_FLIGHT }, writer));
  } finally {
    await step('closing', (cb) => sftp.close(handle, cb));
  }
  sftp.end();
}

function openError(err: Error & { code?: number }, target: SftpTarget): Error {
  const dir = target.directory === '' ? 'the login directory' : target.directory;
  if (err.code === SFTP_NO_SUCH_FILE)
    return new AttemptError(`directory ${dir} does not exist on ${target.address}`);
  if (err.code === SFTP_PERMISSION_DENIED)
    return new AttemptError(`permission denied creating ${target.path} on ${target.address}`);
  return new AttemptError(`creating ${target.path} on ${target.address} failed: ${err.message}`);
}
