#!/usr/bin/env node
// @ts-check
// One TCP connection from a fixed source port, run inside a client netns
// (`ip netns exec <netns> node tcp-attempt.mjs ...`), for the conntrack reuse tests: the kernel
// picks a fresh ISN for every connect, so reusing the port reuses the 5-tuple with new sequence
// numbers, which is what exposes the userspace conntrack's stale window. Prints one JSON line:
//   {"result":"open","greeting":"hello\n"}   result: open | timeout | refused | error
// greeting: what the server sent first (within --wait-ms after the handshake).
// How an open connection ends: rst (SO_LINGER 0: a RST as the first thing the client sends),
// data-rst (one byte first, then a RST).
//
//   node tcp-attempt.mjs --to HOST:PORT --from-port N --close rst|data-rst [--timeout-ms 500] [--wait-ms 300]
import net from 'node:net';

/** @param {string[]} argv */
function parseArgs(argv) {
  /** @type {Record<string, string>} */
  const o = { 'timeout-ms': '500', 'wait-ms': '300' };
  for (let i = 0; i < argv.length; i += 2) o[String(argv[i]).replace(/^--/, '')] = String(argv[i + 1]);
  const m = /^([\d.]+):(\d+)$/.exec(o['to'] ?? '');
  const close = o['close'];
  if (!m || !o['from-port'] || (close !== 'rst' && close !== 'data-rst')) {
    process.stderr.write('usage: tcp-attempt.mjs --to HOST:PORT --from-port N --close rst|data-rst\n');
    process.exit(2);
  }
  return {
    host: String(m[1]),
    port: Number(m[2]),
    localPort: Number(o['from-port']),
    close,
    timeoutMs: Number(o['timeout-ms']),
    waitMs: Number(o['wait-ms']),
  };
}

const args = parseArgs(process.argv.slice(2));
let reported = false;
const report = (/** @type {string} */ result, greeting = '') => {
  if (reported) return;
  reported = true;
  process.stdout.write(`${JSON.stringify({ result, greeting })}\n`);
  // Exit only once the line is out; the socket is already reset or destroyed.
  process.stdout.end(() => process.exit(0));
};
// allowHalfOpen: a server FIN must not make Node answer with a FIN of its own; the client closes
// only as --close says, so its port is never left in TIME_WAIT and can be reused at once.
const sock = net.connect({
  host: args.host,
  port: args.port,
  localPort: args.localPort,
  allowHalfOpen: true,
});
let greeting = '';
sock.on('data', (chunk) => {
  greeting += chunk.toString();
});
const timer = setTimeout(() => {
  sock.destroy();
  report('timeout');
}, args.timeoutMs);
let opened = false;
sock.once('connect', () => {
  opened = true;
  clearTimeout(timer);
  setTimeout(() => {
    if (args.close === 'data-rst') sock.write('x', () => setTimeout(() => finish(), 50));
    else finish();
  }, args.waitMs);
});
const finish = () => {
  // The server may have reset it already (a greeter that closed gets our byte and answers RST).
  if (!sock.destroyed) sock.resetAndDestroy();
  report('open', greeting);
};
sock.on('error', (/** @type {NodeJS.ErrnoException} */ e) => {
  // Once open, the result stands: how the connection ended is not what is measured.
  if (opened) return;
  clearTimeout(timer);
  report(e.code === 'ECONNREFUSED' ? 'refused' : 'error');
});
