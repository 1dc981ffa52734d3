import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import type { NplProtocol } from './model.js';
import type { HeldPort, PortOpener } from './port-table.js';

/**
 * Holds ports with real sockets in the agent's network namespace (the Node's), as Antrea's
 * localPortOpener: a port in use fails to bind and is skipped. TCP must listen to bind in Node.js
 * (Go's net.Listen listens too); DNAT in PREROUTING/OUTPUT rewrites NodePortLocal traffic before
 * it could reach this socket, and anything accepted anyway is closed at once.
 */
export class LocalPortOpener implements PortOpener {
  open(port: number, protocol: NplProtocol): Promise<HeldPort> {
    return protocol === 'tcp' ? holdTcp(port) : holdUdp(port);
  }
}

function holdTcp(port: number): Promise<HeldPort> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.destroy());
    server.once('error', reject);
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => {
      server.off('error', reject);
      server.on('error', () => undefined);
      server.unref();
      resolve({ close: () => new Promise<void>((r) => server.close(() => r())) });
    });
  });
}

function holdUdp(port: number): Promise<HeldPort> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type: 'udp4' });
    // A failed bind leaves the UDP handle open (unlike a failed listen): close it, or every port
    // found in use while searching the range would cost a file descriptor.
    const failed = (err: Error) => {
      socket.close();
      reject(err);
    };
    socket.once('error', failed);
    // Datagrams that reach the socket anyway are dropped unread.
    socket.on('message', () => undefined);
    socket.bind({ port, address: '0.0.0.0', exclusive: true }, () => {
      socket.off('error', failed);
      socket.on('error', () => undefined);
      socket.unref();
      resolve({ close: () => new Promise<void>((r) => socket.close(() => r())) });
    });
  });
}
