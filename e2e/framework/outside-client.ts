import { createSocket } from 'node:dgram';
import { connect } from 'node:net';

/**
 * Probes from the host outside the cluster (the test process on the lab's underlay) to a Node's
 * ports: what a client there gets, as one string, so tests compare answers and failures alike.
 */

/** What one TCP connection read before the server closed it (trimmed), its error code, or 'timeout'. */
export function tcpAnswer(host: string, port: number, timeoutMs = 3_000): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    const sock = connect({ host, port });
    const done = (v: string) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    sock.on('data', (x) => {
      data += String(x);
    });
    sock.on('end', () => done(data.trim()));
    sock.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? 'error'));
  });
}

/**
 * Sends `payload` from a new socket (a new connection to conntrack) and resolves with the first
 * answer `accept` maps to a string (default: the trimmed text), its error code, or 'timeout'.
 */
export function udpAnswer(
  host: string,
  port: number,
  payload: string,
  accept: (text: string) => string | undefined = (text) => text,
  timeoutMs = 3_000,
): Promise<string> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4');
    const done = (v: string) => {
      clearTimeout(timer);
      sock.close();
      resolve(v);
    };
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    sock.on('message', (m) => {
      const got = accept(String(m).trim());
      if (got !== undefined) done(got);
    });
    sock.on('error', (e: NodeJS.ErrnoException) => done(e.code ?? 'error'));
    sock.send(payload, port, host);
  });
}

/**
 * Connects to host:port every `stepMs` (each try waits `tryMs` at most) until `done(answer)`;
 * resolves with the time it first was (ms since epoch). For benchmarks timing a change to packets.
 */
export async function firstAnswerAt(
  host: string,
  port: number,
  done: (answer: string) => boolean,
  { stepMs = 20, tryMs = 300, timeoutMs = 60_000 } = {},
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (done(await tcpAnswer(host, port, tryMs))) return Date.now();
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`${host}:${port} never did`);
}
