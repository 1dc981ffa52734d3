// What both conntrack reuse tests need: one TCP connection from a fixed source port (tcp-attempt.mjs
// in the client's netns) and the state of that connection's entry in an OVS conntrack dump.
import { fileURLToPath } from 'node:url';
import { run } from '@antrea-ts/harness';

const ATTEMPT = fileURLToPath(new URL('./tcp-attempt.mjs', import.meta.url));

export interface Attempt {
  result: 'open' | 'timeout' | 'refused' | 'error';
  /** What the server sent before the client closed. */
  greeting: string;
}

/** How an open connection ends: a RST as the client's first segment, or after one byte of data. */
export type Close = 'rst' | 'data-rst';

export async function tcpAttempt(
  netns: string,
  to: string,
  fromPort: number,
  close: Close,
  timeoutMs = 1_500,
): Promise<Attempt> {
  const argv = [process.execPath, ATTEMPT, '--to', to, '--from-port', String(fromPort), '--close', close];
  // A second for the greeting: the servers fork a process per connection, slow on a loaded machine.
  const out = await run([...argv, '--timeout-ms', String(timeoutMs), '--wait-ms', '1000'], { netns });
  return JSON.parse(out) as Attempt;
}

/** The state `dpctl/dump-conntrack` prints for the entry whose client used `fromPort`. */
export function entryState(dump: string, fromPort: number): string | undefined {
  const line = dump.split('\n').find((l) => l.includes(`sport=${fromPort},`));
  return line ? /state=(\w+)/.exec(line)?.[1] : undefined;
}
