// Shared pieces of the support-bundle tests on the lab (instance 21): the lab options, antctl run
// as a process inside a Node's network namespace (where an agent Pod's antctl runs), and
// archive inspection with the real tar.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const LAB_OPTIONS = e2eLabOptions(21, { owner: 'test' });
export const N1 = 'lab21-node-1';

const exec = promisify(execFile);

export interface Run {
  code: number;
  out: string;
  err: string;
}

/** The built antctl, as a process in `netns` (or the root namespace), with `env` added. */
export async function antctlIn(
  netns: string | undefined,
  args: readonly string[],
  env: Record<string, string> = {},
  cwd = ROOT,
): Promise<Run> {
  const main = join(ROOT, 'dist/cmd/antctl/main.js');
  const argv = netns
    ? ['ip', 'netns', 'exec', netns, process.execPath, main, ...args]
    : [process.execPath, main, ...args];
  try {
    const r = await exec(argv[0] as string, argv.slice(1), {
      cwd,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, out: e.stdout ?? '', err: e.stderr ?? '' };
  }
}

/** Every file of a tar.gz, extracted by tar, as path -> bytes. */
export async function extract(archive: string): Promise<Map<string, Buffer>> {
  const dir = await mkdtemp(join(tmpdir(), 'antrea-ts-f1-extract-'));
  try {
    await exec('tar', ['xzf', archive, '-C', dir]);
    const files = new Map<string, Buffer>();
    const walk = async (d: string): Promise<void> => {
      for (const e of await readdir(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) await walk(p);
        else if ((await stat(p)).isFile()) files.set(relative(dir, p), await readFile(p));
      }
    };
    await walk(dir);
    return files;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Where any of `secrets` occurs in an archive: in the compressed bytes, the tar stream (headers
 * included) or any extracted file. Returns "<place>: <secret prefix>" lines; empty means clean.
 */
export async function findSecrets(archive: string, secrets: readonly string[]): Promise<string[]> {
  const gz = await readFile(archive);
  const places: [string, Buffer][] = [
    ['tar.gz', gz],
    ['tar', gunzipSync(gz)],
  ];
  for (const [name, data] of await extract(archive)) places.push([name, data]);
  const found: string[] = [];
  for (const [place, data] of places) {
    for (const s of secrets) if (data.includes(Buffer.from(s))) found.push(`${place}: ${s.slice(0, 12)}...`);
  }
  return found;
}
