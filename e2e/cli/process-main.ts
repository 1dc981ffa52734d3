// The process side shared by the e2e CLIs: argv and stdio in, exit status out. SIGINT/SIGTERM
// abort the signal, so a run stops after what is in flight, which still cleans up.
export type CliMain = (
  argv: readonly string[],
  io: { out: (l: string) => void; err: (l: string) => void; isTTY?: boolean },
  deps: { signal: AbortSignal; env: NodeJS.ProcessEnv; uid: number },
) => Promise<number>;

export function runAsProcess(name: string, main: CliMain): void {
  const abort = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => abort.abort());
  main(
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
      process.stderr.write(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
