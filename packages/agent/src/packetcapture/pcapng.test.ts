import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type CapturedPacket, PcapStreamReader } from './pcap-stream.js';
import {
  LINKTYPE_ETHERNET,
  PCAPNG_BLOCK,
  PCAPNG_BYTE_ORDER_MAGIC,
  pcapngHeader,
  pcapngPacket,
} from './pcapng.js';

interface Block {
  type: number;
  body: Buffer;
}

/** Splits a pcapng file into blocks, checking each block's two length fields agree. */
function blocks(file: Buffer): Block[] {
  const out: Block[] = [];
  for (let at = 0; at < file.length; ) {
    const type = file.readUInt32LE(at);
    const total = file.readUInt32LE(at + 4);
    expect(total % 4).toBe(0);
    expect(file.readUInt32LE(at + total - 4)).toBe(total);
    out.push({ type, body: file.subarray(at + 8, at + total - 4) });
    at += total;
  }
  return out;
}

/** Options of a block body from `from`: code -> value. */
function options(body: Buffer, from: number): Map<number, Buffer> {
  const out = new Map<number, Buffer>();
  for (let at = from; at < body.length; ) {
    const code = body.readUInt16LE(at);
    const len = body.readUInt16LE(at + 2);
    if (code === 0) break;
    out.set(code, body.subarray(at + 4, at + 4 + len));
    at += 4 + len + ((4 - (len % 4)) % 4);
  }
  return out;
}

const packets: CapturedPacket[] = [
  { timestampNs: 1_700_000_000_123_456_789n, originalLength: 3, data: Buffer.from([1, 2, 3]) },
  { timestampNs: 1_700_000_001_000_000_001n, originalLength: 1500, data: Buffer.alloc(64, 0xab) },
];
const file = Buffer.concat([pcapngHeader({ name: 'web-abc123' }), ...packets.map(pcapngPacket)]);

describe('pcapng writer', () => {
  it('writes a section, the interface (Ethernet, snap 65536, name, ns resolution) and one EPB per packet', () => {
    const [shb, idb, ...epbs] = blocks(file);
    expect(shb?.type).toBe(PCAPNG_BLOCK.sectionHeader);
    expect(shb?.body.readUInt32LE(0)).toBe(PCAPNG_BYTE_ORDER_MAGIC);
    expect([shb?.body.readUInt16LE(4), shb?.body.readUInt16LE(6)]).toEqual([1, 0]);
    expect(idb?.type).toBe(PCAPNG_BLOCK.interfaceDescription);
    expect(idb?.body.readUInt16LE(0)).toBe(LINKTYPE_ETHERNET);
    expect(idb?.body.readUInt32LE(4)).toBe(65536);
    const idbOptions = options(idb!.body, 8);
    expect(idbOptions.get(2)?.toString()).toBe('web-abc123');
    expect(idbOptions.get(9)).toEqual(Buffer.from([9]));
    expect(epbs.map((b) => b.type)).toEqual([PCAPNG_BLOCK.enhancedPacket, PCAPNG_BLOCK.enhancedPacket]);
    const parsed = epbs.map(({ body }) => {
      const captured = body.readUInt32LE(12);
      return {
        interfaceId: body.readUInt32LE(0),
        timestampNs: (BigInt(body.readUInt32LE(4)) << 32n) | BigInt(body.readUInt32LE(8)),
        originalLength: body.readUInt32LE(16),
        data: Buffer.from(body.subarray(20, 20 + captured)),
      };
    });
    expect(parsed).toEqual(packets.map((p) => ({ interfaceId: 0, ...p })));
  });

  it('is read by tcpdump: both packets, their lengths and nanosecond times', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ats-pcapng-'));
    try {
      const path = join(dir, 'capture.pcapng');
      writeFileSync(path, file);
      const { stdout } = await promisify(execFile)('tcpdump', ['-r', path, '-nn', '--nano', '-tt', '-q']);
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^1700000000\.123456789 /);
      expect(lines[1]).toMatch(/^1700000001\.000000001 /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('PcapStreamReader', () => {
  it('reads microsecond pcap in chunks of any size, keeping partial records for the next chunk', () => {
    const head = Buffer.alloc(24);
    head.writeUInt32LE(0xa1b2c3d4, 0);
    head.writeUInt32LE(65536, 16);
    head.writeUInt32LE(1, 20);
    const record = (sec: number, usec: number, data: Buffer, orig: number) => {
      const r = Buffer.alloc(16);
      r.writeUInt32LE(sec, 0);
      r.writeUInt32LE(usec, 4);
      r.writeUInt32LE(data.length, 8);
      r.writeUInt32LE(orig, 12);
      return Buffer.concat([r, data]);
    };
    const stream = Buffer.concat([
      head,
      record(10, 5, Buffer.from('abc'), 3),
      record(11, 999_999, Buffer.alloc(40, 7), 9000),
    ]);
    const reader = new PcapStreamReader();
    const got: CapturedPacket[] = [];
    for (let i = 0; i < stream.length; i += 7) got.push(...reader.push(stream.subarray(i, i + 7)));
    expect(reader.header).toEqual({ linkType: 1, snapLength: 65536 });
    expect(got).toEqual([
      { timestampNs: 10_000_005_000n, originalLength: 3, data: Buffer.from('abc') },
      { timestampNs: 11_999_999_000n, originalLength: 9000, data: Buffer.alloc(40, 7) },
    ]);
  });

  it('refuses a stream that is not pcap', () => {
    expect(() => new PcapStreamReader().push(Buffer.from('tcpdump: eth9: No such device exists\n'))).toThrow(
      /not a pcap stream/,
    );
  });
});
