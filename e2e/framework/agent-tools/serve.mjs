#!/usr/bin/env node
// @ts-check
// The server every test Pod runs (lab: `ip netns exec <netns> node serve.mjs ...` started by the
// lab's Pod maker; kind: the container command). Standalone: Node builtins only, no build step.
//
//   node serve.mjs --id NS/POD [--tcp 80,81] [--udp 80,81] [--host ::]
// TCP: accepts, writes "<id>\n", closes (a probe only needs the handshake; the id helps a person).
// UDP: answers "ping <nonce>" with "pong <nonce> <id>" (probe.mjs waits for exactly that).
// Listens on "::" (IPv4 and IPv6) and falls back to 0.0.0.0 where the netns has no IPv6.
// Prints {"ready":true,"id":...,"tcp":[...],"udp":[...]} once every socket listens; exits 0 on
// SIGTERM/SIGINT, 1 when a port cannot be bound (the error on stderr).
import dgram from 'node:dgram';
import net from 'node:net';

/** @param {string | undefined} list */
function ports(list) {
  if (!list) return [];
  return list.split(',').map((p) => {
    const n = Number(p);
    if (!Number.isInteger(n) || n < 1 || n > 65535) {
      process.stderr.write(`serve.mjs: bad port ${p}\n`);
      process.exit(2);
    }
    return n;
  });
}

/** @param {string[]} argv */
function options(argv) {
  /** @type {Record<string, string>} */
  const o = {};
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i] ?? '';
    const v = argv[i + 1];
    if (!k.startsWith('--') || v === undefined) {
      process.stderr.write('usage: serve.mjs --id NS/POD [--tcp P,...] [--udp P,...] [--host ADDR]\n');
      process.exit(2);
    }
    o[k.slice(2)] = v;
  }
  return o;
}

/**
 * @param {number} port
 * @param {string} host
 * @param {string} id
 * @returns {Promise<net.Server>}
 */
function listenTcp(port, host, id) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((sock) => {
      sock.on('error', () => {}); // a probe that resets is normal
      sock.end(`${id}\n`);
    });
    server.once('error', reject);
    server.listen({ port, host, ipv6Only: false }, () => resolve(server));
  });
}

/**
 * @param {number} port
 * @param {string} host
 * @param {string} id
 * @returns {Promise<dgram.Socket>}
 */
function listenUdp(port, host, id) {
  return new Promise((resolve, reject) => {
    const sock = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4', ipv6Only: false });
    sock.on('message', (msg, rinfo) => {
      const text = msg.toString();
      if (text.startsWith('ping ')) sock.send(`pong ${text.slice(5)} ${id}`, rinfo.port, rinfo.address);
    });
    sock.once('error', reject);
    sock.bind(port, host, () => {
      sock.off('error', reject);
      sock.on('error', () => {}); // an unreachable client must not end the server
      resolve(sock);
    });
  });
}

/**
 * @param {string} host
 * @param {number[]} tcp
 * @param {number[]} udp
 * @param {string} id
 */
async function listenAll(host, tcp, udp, id) {
  /** @type {Array<{ close(): unknown }>} */
  const open = [];
  try {
    for (const p of tcp) open.push(await listenTcp(p, host, id));
    for (const p of udp) open.push(await listenUdp(p, host, id));
    return open;
  } catch (e) {
    for (const s of open) s.close();
    throw e;
  }
}

const o = options(process.argv.slice(2));
const id = o.id ?? 'unknown';
const tcp = ports(o.tcp);
const udp = ports(o.udp);
/** @type {Array<{ close(): unknown }>} */
let sockets;
try {
  sockets = await listenAll(o.host ?? '::', tcp, udp, id);
} catch (e) {
  const code = /** @type {NodeJS.ErrnoException} */ (e).code;
  // No IPv6 in this netns (disabled, or no address family): IPv4 only.
  if (o.host === undefined && (code === 'EAFNOSUPPORT' || code === 'EADDRNOTAVAIL')) {
    sockets = await listenAll('0.0.0.0', tcp, udp, id).catch((e2) => {
      process.stderr.write(`serve.mjs: ${/** @type {Error} */ (e2).message}\n`);
      process.exit(1);
    });
  } else {
    process.stderr.write(`serve.mjs: ${/** @type {Error} */ (e).message}\n`);
    process.exit(1);
  }
}
const stop = () => {
  for (const s of sockets) s.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdout.write(`${JSON.stringify({ ready: true, id, tcp, udp })}\n`);
