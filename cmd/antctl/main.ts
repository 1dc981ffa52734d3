// antctl: the composition root. It hands the process's streams, files, clock and randomness to
// the antctl package and exits with the status it returns.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runAntctl } from '@antrea-ts/antctl';
import { loadOptions } from './options.js';

const options = loadOptions(process.env);
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const code = await runAntctl(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: options.env,
  programName: options.programName,
  version: options.version,
  fileExists: (p) => existsSync(p),
  readFile: (p) => readFileSync(p, 'utf8'),
  writeFile: (p, data) => {
    mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
    writeFileSync(p, data, { mode: 0o600 });
  },
  now: () => new Date(),
  sleep: (ms) => sleep(ms),
  // k8s.io/apimachinery rand.String's alphabet (no vowels, no confusable characters).
  randomSuffix: (n) => Array.from(randomBytes(n), (b) => ALPHABET[b % ALPHABET.length]).join(''),
});
// Flush stdout before exiting so piped output (antctl get ... | grep) is never cut short.
process.stdout.write('', () => process.exit(code));
