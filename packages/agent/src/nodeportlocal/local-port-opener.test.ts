import { createSocket } from 'node:dgram';
import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LocalPortOpener } from './local-port-opener.js';
import type { NplProtocol } from './model.js';

const openFds = () => readdirSync('/proc/self/fd').length;

/** A port the kernel hands out now, for the protocol. */
async function freePort(protocol: NplProtocol): Promise<number> {
  if (protocol === 'udp') {
    const s = createSocket('udp4');
    await new Promise<void>((r) => s.bind(0, '0.0.0.0', r));
    const { port } = s.address();
    await new Promise<void>((r) => s.close(() => r()));
    return port;
  }
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '0.0.0.0', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('LocalPortOpener', () => {
  for (const protocol of ['tcp', 'udp'] as const) {
    it(`holds a ${protocol} port, refuses it while held, and gives it back on close`, async () => {
      const opener = new LocalPortOpener();
      const port = await freePort(protocol);
      const held = await opener.open(port, protocol);
      await expect(opener.open(port, protocol)).rejects.toThrow(/EADDRINUSE/);
      await held.close();
      const again = await opener.open(port, protocol);
      await again.close();
    });

    it(`keeps no socket of a ${protocol} port it failed to hold`, async () => {
      const opener = new LocalPortOpener();
      const port = await freePort(protocol);
      const held = await opener.open(port, protocol);
      const before = openFds();
      for (let i = 0; i < 20; i++) await expect(opener.open(port, protocol)).rejects.toThrow();
      // Closing is asynchronous: give the handles a turn to go.
      await new Promise((r) => setTimeout(r, 50));
      expect(openFds() - before).toBeLessThan(5);
      await held.close();
    });
  }
});
