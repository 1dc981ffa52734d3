// A private OpenSSH server for SFTP upload tests: its own config, its own host key (generated into
// a harness temp dir), a throwaway local user with a password, the in-process SFTP server
// (internal-sftp, no shell), listening on loopback (or in a netns) on a free port. stop() ends the
// server and every session it forked, deletes the user and removes the dir.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerCleanup } from './cleanup-registry.js';
import { HarnessError } from './errors.js';
import { poll, run, tryRun } from './exec.js';
import { ManagedProcess } from './managed-process.js';
import { uniqueTag } from './netns.js';
import { freePort } from './ports.js';
import { makeTempDir } from './temp-dir.js';

const SSHD = '/usr/sbin/sshd';
/** Where sshd insists on its privilege-separation chroot; the Debian unit creates it at start. */
const PRIVSEP_DIR = '/run/sshd';

export interface StartSshdOptions {
  /** Host key type (ssh-keygen -t). */
  readonly keyType?: 'ed25519' | 'rsa' | 'ecdsa';
  /** Listen address; in `netns` when given. */
  readonly host?: string;
  readonly netns?: string;
}

export interface SshdInstance {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** The user's home (the SFTP login directory), owned by the user. */
  readonly home: string;
  /** The host key's base64 field, as spec.fileServer.hostPublicKey takes it. */
  readonly hostPublicKey: string;
  readonly logFile: string;
  /** Creates `<home>/<name>` owned by the user (a directory uploads can write to); returns its path. */
  userDir(name: string): string;
  stop(): Promise<void>;
}

/** The pids of every descendant of `pid` (sshd forks a monitor and a session per connection). */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

function killAll(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function deleteUser(user: string): void {
  try {
    execFileSync('userdel', ['-f', user], { stdio: 'ignore' });
  } catch {
    // already gone
  }
}

export async function startSshd(options: StartSshdOptions = {}): Promise<SshdInstance> {
  const dir = makeTempDir('sshd');
  const host = options.host ?? '127.0.0.1';
  const user = `ats-sftp-${uniqueTag()}`;
  const password = `pw-${uniqueTag()}${uniqueTag()}`;
  const home = join(dir.path, 'home');
  // mkdtemp makes it 0700: the user must get through it to its home.
  chmodSync(dir.path, 0o755);
  const hostKey = join(dir.path, `host_${options.keyType ?? 'ed25519'}`);
  mkdirSync(PRIVSEP_DIR, { recursive: true, mode: 0o755 });
  await run(['ssh-keygen', '-q', '-t', options.keyType ?? 'ed25519', '-N', '', '-f', hostKey]);
  await run(['useradd', '--no-create-home', '--home-dir', home, '--shell', '/usr/sbin/nologin', user]);
  const unregisterUser = registerCleanup(() => deleteUser(user));
  await run(['chpasswd'], { input: `${user}:${password}\n` });
  mkdirSync(home, { mode: 0o755 });
  const uid = Number((await run(['id', '-u', user])).trim());
  const gid = Number((await run(['id', '-g', user])).trim());
  chownSync(home, uid, gid);

  let proc: ManagedProcess | undefined;
  const stop = async () => {
    const pid = proc?.pid;
    if (pid !== undefined) killAll(descendants(pid));
    await proc?.stop(2_000);
    deleteUser(user);
    unregisterUser();
    dir.remove();
  };
  try {
    const port = await freePort(options.netns ? '127.0.0.1' : host);
    const config = join(dir.path, 'sshd_config');
    writeFileSync(
      config,
      [
        `ListenAddress ${host}:${port}`,
        `HostKey ${hostKey}`,
        `PidFile ${join(dir.path, 'sshd.pid')}`,
        `AllowUsers ${user}`,
        'UsePAM no',
        'PasswordAuthentication yes',
        'KbdInteractiveAuthentication no',
        'PubkeyAuthentication no',
        'AuthorizedKeysFile none',
        'PermitRootLogin no',
        'StrictModes no',
        'Subsystem sftp internal-sftp',
        'ForceCommand internal-sftp',
        'LogLevel VERBOSE',
        '',
      ].join('\n'),
    );
    proc = new ManagedProcess({
      name: 'sshd',
      argv: [SSHD, '-D', '-e', '-f', config],
      netns: options.netns,
      logFile: join(dir.path, 'sshd.log'),
    });
    const started = proc;
    await poll(
      'sshd listening',
      async () => {
        started.assertRunning();
        return readFileSync(started.logFile, 'utf8').includes('Server listening');
      },
      { timeoutMs: 20_000, isFatal: (e) => e instanceof HarnessError },
    );
    return {
      host,
      port,
      user,
      password,
      home,
      hostPublicKey: readFileSync(`${hostKey}.pub`, 'utf8').split(' ')[1] ?? '',
      logFile: started.logFile,
      userDir: (name) => {
        const path = join(home, name);
        mkdirSync(path);
        chownSync(path, uid, gid);
        return path;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err instanceof HarnessError
      ? err
      : new HarnessError('HARNESS_COMMAND_FAILED', `starting sshd failed: ${String(err)}`, { cause: err });
  }
}

/** Whether `user` still exists (for leak checks). */
export function userExists(user: string): Promise<boolean> {
  return tryRun(['id', '-u', user]);
}
