import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type AntctlDeps, runAntctl } from '@antrea-ts/antctl';

export interface AntctlRun {
  code: number;
  out: string;
  err: string;
}

/** Runs antctl in-process with real connections, files and clock; output captured. */
export async function antctl(argv: string[], env: AntctlDeps['env'] = {}): Promise<AntctlRun> {
  let out = '';
  let err = '';
  const code = await runAntctl(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    version: '0.1.0-antrea-ts',
    fileExists: (p) => existsSync(p),
    readFile: (p) => readFileSync(p, 'utf8'),
    writeFile: (p, d) => {
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, d);
    },
    now: () => new Date(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    randomSuffix: (n) => randomBytes(n).toString('hex').slice(0, n),
  });
  return { code, out, err };
}

/** Retries until fn stops throwing (the aggregator needs a moment to mark an APIService available). */
export async function eventually<T>(fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
