// The loopback token: a fresh secret per agent start, in a file only root can read, so antctl
// inside the agent Pod (which shares the agent's /var/run/antrea) authenticates without a kubeconfig.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Antrea's path (pkg/agent/apiserver TokenPath); antctl in agent mode reads it. */
export const LOOPBACK_TOKEN_PATH = '/var/run/antrea/apiserver/loopback-client-token';

/** Generates a token from `randomBytes`, writes it 0600 to `path` and returns it. */
export async function writeLoopbackToken(path: string, randomBytes: (n: number) => Buffer): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, token, { mode: 0o600 });
  // writeFile's mode applies only to a new file: a file left by an earlier run keeps its own.
  await chmod(path, 0o600);
  return token;
}
