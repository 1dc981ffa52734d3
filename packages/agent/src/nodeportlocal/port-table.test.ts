import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { LocalPortOpener } from './local-port-opener.js';
import { PortTable } from './port-table.js';
import { FakePortOpener } from './testing-fakes.js';

describe('NodePortLocal port table', () => {
  it('hands out ports in order per protocol, skips ports the host uses, wraps, and holds each', async () => {
    const opener = new FakePortOpener();
    opener.busy.add('100/tcp');
    const t = new PortTable({ start: 100, end: 103 }, opener);
    expect((await t.allocate('ns/a', '10.0.0.1', 80, 'tcp')).nodePort).toBe(101);
    expect((await t.allocate('ns/a', '10.0.0.1', 80, 'udp')).nodePort).toBe(102);
    expect((await t.allocate('ns/b', '10.0.0.2', 80, 'tcp')).nodePort).toBe(103);
    expect([...opener.held].sort()).toEqual(['101/tcp', '102/udp', '103/tcp']);
    // The search goes on after the last port handed out: a released port is not reused at once.
    await t.release('ns/a', 80, 'tcp');
    expect(opener.held.has('101/tcp')).toBe(false);
    expect((await t.allocate('ns/c', '10.0.0.3', 80, 'tcp')).nodePort).toBe(101);
    // 102 is taken for UDP only: ports are per protocol.
    expect((await t.allocate('ns/d', '10.0.0.4', 80, 'tcp')).nodePort).toBe(102);
    await expect(t.allocate('ns/e', '10.0.0.5', 80, 'tcp')).rejects.toMatchObject({
      code: 'AGENT_NPL_PORTS_EXHAUSTED',
    });
    expect(t.forPod('ns/a')).toEqual([
      { podKey: 'ns/a', podIp: '10.0.0.1', podPort: 80, protocol: 'udp', nodePort: 102 },
    ]);
    await t.closeAll();
    expect(opener.held.size).toBe(0);
  });

  it('adopts a previous mapping only in range, once, and when the host lets it hold the port', async () => {
    const opener = new FakePortOpener();
    opener.busy.add('102/tcp');
    const t = new PortTable({ start: 100, end: 110 }, opener);
    const m = { podKey: 'ns/a', podIp: '10.0.0.1', podPort: 80, protocol: 'tcp' as const, nodePort: 105 };
    expect(await t.adopt(m)).toBe(true);
    expect(await t.adopt({ ...m, podKey: 'ns/b' })).toBe(false);
    expect(await t.adopt({ ...m, nodePort: 105, podPort: 81 })).toBe(false);
    expect(await t.adopt({ ...m, podKey: 'ns/c', nodePort: 99 })).toBe(false);
    expect(await t.adopt({ ...m, podKey: 'ns/c', nodePort: 102 })).toBe(false);
    expect(t.get('ns/a', 80, 'tcp')?.nodePort).toBe(105);
    // An adopted port is never handed out again.
    const ports = [];
    for (let i = 0; i < 9; i++) ports.push((await t.allocate(`ns/x${i}`, '10.0.0.9', 80, 'tcp')).nodePort);
    expect(ports).toEqual([100, 101, 103, 104, 106, 107, 108, 109, 110]);
  });

  it('with real sockets: a TCP port another process listens on is not handed out; a held UDP port refuses others', async () => {
    const other = createServer();
    await new Promise<void>((r) => other.listen({ port: 0, host: '0.0.0.0' }, () => r()));
    const busy = (other.address() as { port: number }).port;
    const t = new PortTable({ start: busy, end: busy }, new LocalPortOpener());
    try {
      await expect(t.allocate('ns/a', '10.0.0.1', 80, 'tcp')).rejects.toMatchObject({
        code: 'AGENT_NPL_PORTS_EXHAUSTED',
      });
      // The same number is free for UDP (ports are per protocol), and once held nobody else binds it.
      const u = await t.allocate('ns/a', '10.0.0.1', 53, 'udp');
      expect(u.nodePort).toBe(busy);
      await expect(new LocalPortOpener().open(busy, 'udp')).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await t.release('ns/a', 53, 'udp');
      const again = await new LocalPortOpener().open(busy, 'udp');
      await again.close();
    } finally {
      await t.closeAll();
      other.close();
    }
  });
});
