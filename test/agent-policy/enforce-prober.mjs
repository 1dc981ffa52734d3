#!/usr/bin/env node
// @ts-check
// Long-lived TCP prober for bench:enforce, run inside a Pod's network namespace
// (`ip netns exec <netns> node enforce-prober.mjs ...`). Spawning probe.mjs per probe costs 50+ ms
// here, too coarse to time a policy change, so this one process opens a fresh TCP connection to
// every target every --interval-ms (established connections bypass policy lookups, so only new
// ones show a change) and prints one JSON line per finished attempt:
//   {"t":0,"seq":17,"start":1763726400123.456,"ms":1.2,"result":"allow"}
// t: index of the target in the arguments; seq: per-target attempt number (consecutive, so the
// reader knows when every earlier attempt is in); start: wall-clock ms (performance.timeOrigin +
// performance.now(), comparable with the reader's clock) just before connect(), when the SYN
// leaves; result: allow (connected), drop (no answer within --timeout-ms), reject (RST or ICMP
// unreachable), error (anything else, e.g. no route).
// An allowed connection is closed with a FIN, not a RST: on the client's Node, userspace OVS
// conntrack keeps a connection ESTABLISHED after a RST when its 5-tuple was last used by a SYN
// that a policy dropped on the server's Node (the entry stayed SYN_SENT with the old sequence
// numbers), and drops the next SYN that reuses the source port as invalid; see the networkpolicy
// README. Exits when stdin closes (its parent went away) or on SIGTERM.
//
//   node enforce-prober.mjs [--interval-ms 5] [--timeout-ms 200] HOST:PORT...
import net from 'node:net';

const REJECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH']);

/** @param {string} text */
function parseTarget(text) {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const host = m ? /** @type {string} */ (m[1] ?? m[2]) : '';
  const port = m ? Number(m[3]) : 0;
  if (!m || port < 1 || port > 65535 || net.isIP(host) === 0) return undefined;
  return { host, port };
}

/**
 * @param {number} t
 * @param {number} seq
 * @param {{ host: string, port: number }} target
 * @param {number} timeoutMs
 */
function attempt(t, seq, target, timeoutMs) {
  const start = performance.timeOrigin + performance.now();
  const sock = net.connect({ host: target.host, port: target.port });
  let done = false;
  const finish = (/** @type {string} */ result) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if (result === 'allow') {
      // Read the server's greeting and FIN so the close is orderly; give up after a while.
      const linger = setTimeout(() => sock.destroy(), 2_000);
      sock.once('close', () => clearTimeout(linger));
      sock.resume();
      sock.end();
    } else sock.destroy();
    const ms = performance.timeOrigin + performance.now() - start;
    process.stdout.write(`${JSON.stringify({ t, seq, start, ms, result })}\n`);
  };
  const timer = setTimeout(() => finish('drop'), timeoutMs);
  sock.once('connect', () => finish('allow'));
  sock.once('error', (/** @type {NodeJS.ErrnoException} */ e) =>
    finish(REJECT_CODES.has(e.code ?? '') ? 'reject' : 'error'),
  );
}

/** @param {string[]} argv */
function main(argv) {
  let intervalMs = 5;
  let timeoutMs = 200;
  /** @type {string[]} */
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    const a = /** @type {string} */ (argv[i]);
    if (a === '--interval-ms') intervalMs = Number(argv[++i]);
    else if (a === '--timeout-ms') timeoutMs = Number(argv[++i]);
    else args.push(a);
  }
  const targets = args.map(parseTarget);
  if (!(intervalMs > 0) || !(timeoutMs > 0) || targets.length === 0 || targets.some((t) => !t)) {
    process.stderr.write('usage: enforce-prober.mjs [--interval-ms N] [--timeout-ms N] HOST:PORT...\n');
    process.exit(2);
  }
  const seqs = targets.map(() => 0);
  const tick = setInterval(() => {
    targets.forEach((target, t) => {
      attempt(t, seqs[t]++, /** @type {{ host: string, port: number }} */ (target), timeoutMs);
    });
  }, intervalMs);
  const exit = () => {
    clearInterval(tick);
    process.exit(0);
  };
  process.stdin.on('end', exit).on('error', exit).resume();
  process.on('SIGTERM', exit);
  // A reader that went away closes the pipe: stop instead of dying on EPIPE mid-line.
  process.stdout.on('error', exit);
}

main(process.argv.slice(2));
