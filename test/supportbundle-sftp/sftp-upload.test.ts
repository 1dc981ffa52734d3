// The agent's SFTP upload against a real OpenSSH server (a private sshd per file: own config, own
// host key, a throwaway user with a password, internal-sftp): a real bundle archive written and
// read back byte for byte, Antrea's URL forms, the pinned host key, and the error each failure
// puts on the collection's status. Root (useradd, sshd).
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AgentError,
  type BundleFileServer,
  FileServerBundleUploader,
  SftpBundleUploader,
} from '@antrea-ts/agent';
import { packBundle, Redactor } from '@antrea-ts/apis';
import { freePort, type SshdInstance, startSshd, userExists } from '@antrea-ts/harness';
import ssh2 from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
let sshd: SshdInstance;
let uploadDir: string;
const FILE = 'sftp-n1_collection-1.tar.gz';

/** A real bundle: a few files and 1 MiB of incompressible bytes, so the write spans many requests. */
function bundle(tag: string): Buffer {
  const noise = Buffer.from(Array.from({ length: 1 << 20 }, (_, i) => (i * 2654435761) >>> 24));
  return packBundle(
    [
      { name: 'logs/agent.log', content: `agent log ${tag}\n` },
      { name: 'agent/config.json', content: '{"nodeName":"sftp-n1"}\n' },
      { name: 'ovs/flows.txt', content: noise.toString('latin1') },
    ],
    new Redactor({ secrets: [] }),
    new Date('2026-11-21T12:00:00Z'),
  ).archive;
}

/** A fresh key of `type`, in wire format: a host key that is not the server's. */
const otherKey = (type: 'ed25519' | 'rsa') =>
  Buffer.from(
    ssh2.utils.generateKeyPairSync(type, type === 'rsa' ? { bits: 2048 } : {}).public.split(' ')[1] ?? '',
    'base64',
  );

const server = (dir = uploadDir, hostPublicKey: Uint8Array | undefined = pinned()): BundleFileServer => ({
  url: `sftp://${sshd.host}:${sshd.port}${dir}`,
  ...(hostPublicKey ? { hostPublicKey } : {}),
});
const pinned = () => Buffer.from(sshd.hostPublicKey, 'base64');
const credentials = (password = sshd.password) => ({
  basicAuthentication: { username: sshd.user, password },
});
/** Two attempts 100 ms apart: Antrea's retry loop, short. */
const uploader = new SftpBundleUploader({ attempts: 2, retryDelayMs: 100 });

/** Sockets this process holds (fds whose link is socket:[...]). */
function openSockets(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // Closed while listing.
    }
  }
  return n;
}

/**
 * A failed attempt closes its connection: no socket is left once the upload has failed. The close
 * completes on a later turn of the event loop (later still on a loaded machine), so the count is
 * read until it is back or 10 s pass; a socket the uploader never closes stays open and fails this.
 */
async function expectNoSocketLeft(before: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (openSockets() !== before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(openSockets()).toBe(before);
}

async function failure(p: Promise<void>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(AgentError.is(e) && e.code).toBe('AGENT_BUNDLE_UPLOAD_FAILED');
    return (e as Error).message;
  }
  throw new Error('the upload succeeded');
}

beforeAll(async () => {
  sshd = await startSshd();
  uploadDir = sshd.userDir('bundles');
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
});

describe('SFTP upload to a real sshd', () => {
  it('writes <dir>/<file> with the pinned host key and password; the bytes read back are the bundle', async () => {
    const archive = bundle('first');
    await uploader.upload(server(), credentials(), FILE, archive);
    const written = readFileSync(join(uploadDir, FILE));
    expect(written.equals(archive)).toBe(true);
    const { stdout } = await exec('tar', ['tzf', join(uploadDir, FILE)]);
    expect(stdout.trim().split('\n').sort()).toEqual([
      'agent/config.json',
      'logs/agent.log',
      'ovs/flows.txt',
    ]);
    // A second upload of the same collection replaces the file (Antrea's Create truncates).
    const smaller = packBundle(
      [{ name: 'logs/agent.log', content: 'second\n' }],
      new Redactor({ secrets: [] }),
      new Date(),
    ).archive;
    await uploader.upload(server(), credentials(), FILE, smaller);
    expect(readFileSync(join(uploadDir, FILE)).equals(smaller)).toBe(true);
  });

  it('takes Antrea URL forms: no scheme, and no host key (any accepted), through the scheme dispatch', async () => {
    const archive = bundle('schemeless');
    const byScheme = new FileServerBundleUploader(undefined, { sftp: uploader });
    await byScheme.upload(
      { url: `${sshd.host}:${sshd.port}${uploadDir}` },
      credentials(),
      'schemeless.tar.gz',
      archive,
    );
    expect(readFileSync(join(uploadDir, 'schemeless.tar.gz')).equals(archive)).toBe(true);
  });

  it('a wrong password fails every attempt with an authentication error and writes nothing', async () => {
    const sockets = openSockets();
    const message = await failure(
      uploader.upload(server(), credentials('not-the-password'), 'pw.tar.gz', bundle('x')),
    );
    expect(message).toBe(
      `failed to upload file after 2 attempts: authentication as "${sshd.user}" failed at ${sshd.host}:${sshd.port}`,
    );
    expect(existsSync(join(uploadDir, 'pw.tar.gz'))).toBe(false);
    // Each attempt was a login the server refused.
    const refused = readFileSync(sshd.logFile, 'utf8').match(/Failed password for ats-sftp-/g) ?? [];
    expect(refused.length).toBe(2);
    await expectNoSocketLeft(sockets);
  });

  it('a server whose host key is not hostPublicKey is refused before any password is sent', async () => {
    const logins = () =>
      (readFileSync(sshd.logFile, 'utf8').match(/Failed password|Accepted password/g) ?? []).length;
    const before = logins();
    const sockets = openSockets();
    const wrong = otherKey('ed25519');
    const message = await failure(
      uploader.upload(server(uploadDir, wrong), credentials(), 'hk.tar.gz', bundle('x')),
    );
    expect(message).toMatch(
      new RegExp(
        `^failed to upload file after 2 attempts: host key mismatch: ${sshd.host}:${sshd.port} presented SHA256:\\S+, spec\\.fileServer\\.hostPublicKey is ssh-ed25519 SHA256:\\S+$`,
      ),
    );
    // A pinned RSA key against a server with only an ed25519 key: no common host key algorithm.
    const rsa = await failure(
      uploader.upload(server(uploadDir, otherKey('rsa')), credentials(), 'hk.tar.gz', bundle('x')),
    );
    expect(rsa).toMatch(/host key mismatch: \S+ has no ssh-rsa host key/);
    expect(logins()).toBe(before);
    expect(existsSync(join(uploadDir, 'hk.tar.gz'))).toBe(false);
    await expectNoSocketLeft(sockets);
  });

  it('a missing directory, an unreachable server and a bad key say so; no attempt leaves a socket', async () => {
    const sockets = openSockets();
    expect(
      await failure(
        uploader.upload(server(join(uploadDir, 'missing')), credentials(), 'm.tar.gz', bundle('x')),
      ),
    ).toBe(
      `failed to upload file after 2 attempts: directory ${join(uploadDir, 'missing')} does not exist on ${sshd.host}:${sshd.port}`,
    );
    await expectNoSocketLeft(sockets);
    const closed = await freePort();
    expect(
      await failure(
        uploader.upload({ url: `sftp://127.0.0.1:${closed}/x` }, credentials(), 'u.tar.gz', bundle('x')),
      ),
    ).toBe(
      `failed to upload file after 2 attempts: cannot reach the file server 127.0.0.1:${closed}: connect ECONNREFUSED 127.0.0.1:${closed}`,
    );
    await expectNoSocketLeft(sockets);
    // Refused before any connection, as Antrea's client configuration refuses it.
    expect(
      await failure(
        uploader.upload(server(uploadDir, Buffer.from('abc')), credentials(), 'k.tar.gz', bundle('x')),
      ),
    ).toMatch(/^invalid host public key: /);
    expect(await failure(uploader.upload(server(), { bearerToken: 't' }, 'b.tar.gz', bundle('x')))).toBe(
      'sftp upload needs BasicAuthentication (username and password in the authentication Secret)',
    );
  });

  it('an RSA-keyed server is reached with its pinned key; stop() leaves no sshd process, user or dir', async () => {
    const other = await startSshd({ keyType: 'rsa' });
    const pin = Buffer.from(other.hostPublicKey, 'base64');
    const login = { basicAuthentication: { username: other.user, password: other.password } };
    await new SftpBundleUploader({ attempts: 1 }).upload(
      { url: `sftp://${other.host}:${other.port}`, hostPublicKey: pin },
      login,
      'rsa.tar.gz',
      bundle('rsa'),
    );
    expect(existsSync(join(other.home, 'rsa.tar.gz'))).toBe(true);
    // A session still open when the server stops: the processes sshd forked for it must go too.
    const session = new ssh2.Client();
    await new Promise<void>((resolve, reject) => {
      session.once('ready', () => resolve()).once('error', reject);
      session.connect({ host: other.host, port: other.port, username: other.user, password: other.password });
    });
    session.on('error', () => {});
    const root = join(other.home, '..');
    const ours = async () =>
      (await exec('ps', ['-eo', 'args='])).stdout
        .split('\n')
        .filter((l) => l.includes(root) || l.includes(other.user));
    expect((await ours()).length).toBeGreaterThan(1);
    await other.stop();
    session.end();
    expect(await userExists(other.user)).toBe(false);
    expect(existsSync(root)).toBe(false);
    expect(await ours()).toEqual([]);
  });
});
