// nfdump's nfcapd as the third-party IPFIX collector of the interop tests: one private instance on a
// free loopback port writing into a temp dir, read back through nfdump once stopped.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, ManagedProcess, makeTempDir, run, waitFor } from '@antrea-ts/harness';

export interface Nfcapd {
  readonly port: number;
  /**
   * Waits for datagrams still in flight, stops nfcapd (it writes its file on exit) and returns its
   * log and the flows nfdump prints with `fmt:<format>`, one row of trimmed `|`-separated fields each.
   */
  finish(format: string): Promise<{ log: string; rows: string[][] }>;
  /** Stops nfcapd (if still running) and removes its files. */
  remove(): Promise<void>;
}

export async function startNfcapd(prefix: string): Promise<Nfcapd> {
  const dir = makeTempDir(prefix);
  const port = await freePort();
  const logFile = join(dir.path, 'nfcapd.log');
  const nfcapd = new ManagedProcess({
    name: 'nfcapd',
    argv: ['nfcapd', '-b', '127.0.0.1', '-p', String(port), '-w', dir.path, '-t', '3600', '-E'],
    logFile,
  });
  await waitFor(
    'nfcapd bound',
    async () => readFileSync(logFile, 'utf8').includes('Bound to') || undefined,
    10_000,
    50,
  );
  return {
    port,
    async finish(format) {
      await new Promise((r) => setTimeout(r, 500));
      await nfcapd.stop();
      const log = readFileSync(logFile, 'utf8');
      const file = readdirSync(dir.path).find((f) => /^nfcapd\.\d+$/.test(f));
      if (file === undefined) throw new Error(`nfcapd wrote no flow file; its log:\n${log}`);
      const out = await run(['nfdump', '-r', join(dir.path, file), '-q', '-o', `fmt:${format}`]);
      const rows = out
        .trim()
        .split('\n')
        .map((l) => l.split('|').map((c) => c.trim()));
      return { log, rows };
    },
    async remove() {
      await nfcapd.stop();
      dir.remove();
    },
  };
}
