#!/usr/bin/env node
// @ts-check
// Probe helper run inside a Pod's network namespace (lab: `ip netns exec <netns> node probe.mjs`,
// kind: `kubectl exec <pod> -- node probe.mjs`, or `node - ...` with this file on stdin).
// Standalone on purpose: Node builtins only, no build step, so it can be copied into any Pod.
//
//   node probe.mjs [--timeout-ms 2000] TARGET...      TARGET = tcp:HOST:PORT | udp:HOST:PORT
//                                                     (IPv6 host in brackets: tcp:[fd00::1]:80)
// Probes every target at once and prints one JSON line per target, in argument order:
//   {"target":"tcp:10.10.1.11:80","result":"allow","ms":2}
//   {"target":"udp:10.10.1.11:81","result":"drop","ms":2000,"detail":"timeout"}
// result: allow  - TCP connection opened / UDP request answered by the server (serve.mjs)
//         drop   - nothing came back before the timeout
//         reject - TCP RST, or ICMP unreachable (ECONNREFUSED, ECONNRESET, EHOSTUNREACH)
//         error  - the probe could not run (bad address, no route from this netns, ...)
// Exit status 0 when every target was probed (whatever the results), 2 on a usage error.
import dgram from 'node:dgram';
import net from 'node:net';

// ENOPROTOOPT: ICMP protocol unreachable. EHOSTUNREACH for UDP only comes from a fatal ICMP code
// (administratively prohibited); plain host unreachable reaches a UDP socket only with IP_RECVERR.
const REJECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOPROTOOPT']);
const DROP_CODES = new Set(['ETIMEDOUT']);

/** @param {string} code */
function classify(code) {
  if (REJECT_CODES.has(code)) return 'reject';
  if (DROP_CODES.has(code)) return 'drop';
  // ENETUNREACH is almost always "no route in this netns": a broken Pod, not a policy verdict.
  return 'error';
}

/**
 * @param {string} text
 * @returns {{ proto: 'tcp' | 'udp', host: string, port: number } | undefined}
 */
function parseTarget(text) {
  const m = /^(tcp|udp):(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[4]);
  const host = /** @type {string} */ (m[2] ?? m[3]);
  if (port < 1 || port > 65535 || net.isIP(host) === 0) return undefined;
  return { proto: /** @type {'tcp' | 'udp'} */ (m[1]), host, port };
}

/**
 * @param {string} host
 * @param {number} port
 * @param {number} timeoutMs
 * @returns {Promise<{ result: string, detail?: string }>}
 */
function probeTcp(host, port, timeoutMs) {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const finish = (/** @type {string} */ result, /** @type {string | undefined} */ detail) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(detail ? { result, detail } : { result });
    };
    const timer = setTimeout(() => finish('drop', 'timeout'), timeoutMs);
    sock.once('connect', () => finish('allow', undefined));
    sock.once('error', (/** @type {NodeJS.ErrnoException} */ e) =>
      finish(classify(e.code ?? ''), e.code ?? e.message),
    );
  });
}

/**
 * A request the server answers ("ping <nonce>" -> "pong <nonce> <id>"), resent a few times within
 * the timeout so one lost datagram is not read as a drop. The socket is connected, so an ICMP
 * unreachable surfaces as an error on it.
 * @param {string} host
 * @param {number} port
 * @param {number} timeoutMs
 * @returns {Promise<{ result: string, detail?: string }>}
 */
function probeUdp(host, port, timeoutMs) {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    const nonce = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    const request = Buffer.from(`ping ${nonce}`);
    let done = false;
    /** @type {NodeJS.Timeout | undefined} */
    let resend;
    const finish = (/** @type {string} */ result, /** @type {string | undefined} */ detail) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(resend);
      sock.close();
      resolve(detail ? { result, detail } : { result });
    };
    const timer = setTimeout(() => finish('drop', 'timeout'), timeoutMs);
    const onError = (/** @type {NodeJS.ErrnoException | null} */ e) => {
      if (e) finish(classify(e.code ?? ''), e.code ?? e.message);
    };
    sock.on('error', onError);
    sock.on('message', (msg) => {
      if (msg.toString().startsWith(`pong ${nonce}`)) finish('allow', undefined);
    });
    sock.connect(port, host, () => {
      const send = () => {
        if (!done) sock.send(request, onError);
      };
      send();
      resend = setInterval(send, Math.max(100, Math.floor(timeoutMs / 4)));
    });
  });
}

/** @param {string[]} argv */
async function main(argv) {
  let timeoutMs = 2000;
  /** @type {string[]} */
  const targets = [];
  for (let i = 0; i < argv.length; i++) {
    const a = /** @type {string} */ (argv[i]);
    if (a === '--timeout-ms') timeoutMs = Number(argv[++i]);
    else targets.push(a);
  }
  const parsed = targets.map((t) => parseTarget(t));
  const bad = targets.filter((_, i) => !parsed[i]);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || targets.length === 0 || bad.length > 0) {
    process.stderr.write(
      `usage: probe.mjs [--timeout-ms N] tcp:HOST:PORT|udp:HOST:PORT...${bad.length ? ` (bad: ${bad.join(' ')})` : ''}\n`,
    );
    process.exit(2);
  }
  const results = await Promise.all(
    parsed.map(async (t, i) => {
      const p = /** @type {NonNullable<typeof t>} */ (t);
      const start = Date.now();
      const r =
        p.proto === 'tcp'
          ? await probeTcp(p.host, p.port, timeoutMs)
          : await probeUdp(p.host, p.port, timeoutMs);
      return { target: targets[i], ...r, ms: Date.now() - start };
    }),
  );
  process.stdout.write(results.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

// argv[1] is this file, or "-" when the program comes on stdin (node --input-type=module - ARGS).
await main(process.argv.slice(2));
