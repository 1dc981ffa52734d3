// Process entry of the case runner: `npm run e2e:cases -- [options] <file or folder>...`.
// SIGINT/SIGTERM stop after the running case, which still cleans up.
import { runCli } from './cli.js';

const abort = new AbortController();
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => abort.abort());

runCli(
  process.argv.slice(2),
  {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(`${l}\n`),
    isTTY: process.stdout.isTTY,
  },
  { signal: abort.signal, env: process.env, uid: process.getuid?.() ?? 1000 },
).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`run-cases: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 2;
  },
);
