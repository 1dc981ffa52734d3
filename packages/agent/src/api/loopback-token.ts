// The loopback token: a fresh secret per agent start, in a file only root can read, so antctl
// inside the agent Pod (which shares the agent's /var/run/antrea) authenticates without a kubeconfig.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Generates a token from `randomBytes`, writes it 0600 to `path` and returns it. */
export async function writeLoopbackToken(path: string, randomBytes: (n: number) => Buffer): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await mkdir(dirname(path), { recursive: true });
  // A new file made 0600 replaces the old one: written in place, a file left by an earlier run
  // would keep its own mode (writeFile's applies only to new files) and show the token to whoever
  // can read or has opened it, and antctl could read a half-written token.
  const fresh = `${path}.new`;
  await rm(fresh, { force: true });
  await writeFile(fresh, token, { mode: 0o600, flag: 'wx' });
  await rename(fresh, path);
  return token;
}
