// What a PacketCapture costs the agent: decoding tcpdump's pcap stream and writing pcapng
// (in-process, per packet), tcpdump's start (spawn to "listening", the delay before a capture sees
// packets) and a capture of N packets end to end through TcpdumpCapturer on the loopback interface
// (root; UDP datagrams to a port nobody else uses, filtered by port).
//   node packages/agent/dist/bench/packetcapture.js [--json] [--packets 100000] [--capture 5000] [--starts 10]
import { createSocket } from 'node:dgram';
import { PcapStreamReader, pcapngHeader, pcapngPacket, TcpdumpCapturer } from '@antrea-ts/agent';
import { BenchReport } from '@antrea-ts/harness';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const codecPackets = Number(arg('--packets') ?? 100_000);
const capturePackets = Number(arg('--capture') ?? 5000);
const starts = Number(arg('--starts') ?? 10);
const bench = new BenchReport('packetcapture', json);
const PORT = 47_391;

/** A pcap stream of `n` 128-byte frames, as tcpdump writes it. */
function pcapStream(n: number): Buffer {
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0);
  head.writeUInt32LE(65536, 16);
  head.writeUInt32LE(1, 20);
  const record = Buffer.alloc(16 + 128, 0x5a);
  record.writeUInt32LE(128, 8);
  record.writeUInt32LE(128, 12);
  return Buffer.concat([head, ...Array.from({ length: n }, () => record)]);
}

function codecCase(): void {
  const stream = pcapStream(codecPackets);
  const started = process.cpuUsage();
  const reader = new PcapStreamReader();
  let bytes = pcapngHeader({ name: 'bench0' }).length;
  // 64 KiB pipe reads, as a tcpdump child delivers them.
  for (let at = 0; at < stream.length; at += 65_536) {
    for (const p of reader.push(stream.subarray(at, at + 65_536))) bytes += pcapngPacket(p).length;
  }
  const cpu = process.cpuUsage(started);
  bench.record(
    `decode+pcapng ${codecPackets} x 128 B`,
    'cpu per packet',
    (cpu.user + cpu.system) / codecPackets,
    'us',
  );
  bench.record(`decode+pcapng ${codecPackets} x 128 B`, 'pcapng bytes per packet', bytes / codecPackets, 'B');
}

async function startCase(): Promise<void> {
  const capturer = new TcpdumpCapturer();
  const samples: number[] = [];
  for (let i = 0; i < starts; i++) {
    const abort = new AbortController();
    const t0 = performance.now();
    const packets = capturer.capture({
      device: 'lo',
      filter: `ip proto 17 and dst port ${PORT}`,
      count: 1,
      signal: abort.signal,
      onListening: () => {
        samples.push(performance.now() - t0);
        abort.abort();
      },
    });
    for await (const _ of packets) break;
  }
  bench.recordPercentiles('tcpdump start (spawn to listening)', samples, { p50: 50, max: 100 }, 'ms');
}

async function captureCase(): Promise<void> {
  const capturer = new TcpdumpCapturer();
  const abort = new AbortController();
  const sock = createSocket('udp4');
  let listening: () => void = () => undefined;
  const ready = new Promise<void>((r) => {
    listening = r;
  });
  const packets = capturer.capture({
    device: 'lo',
    filter: `ip proto 17 and dst port ${PORT}`,
    count: capturePackets,
    signal: abort.signal,
    onListening: () => listening(),
  });
  let got = 0;
  let t0 = 0;
  const consumed = (async () => {
    for await (const p of packets) {
      pcapngPacket(p);
      got++;
    }
  })();
  await ready;
  t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const payload = Buffer.alloc(64, 1);
  // Bursts of 100 datagrams, yielding between them so the capture keeps up (the bench measures the
  // capture, not the loopback's drops).
  for (let sent = 0; got < capturePackets && sent < capturePackets * 3; ) {
    for (let i = 0; i < 100; i++, sent++) sock.send(payload, PORT, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 1));
  }
  const timer = setTimeout(() => abort.abort(), 30_000);
  await consumed;
  clearTimeout(timer);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  sock.close();
  bench.record(`capture ${capturePackets} UDP packets on lo`, 'captured', got, 'packets');
  bench.record(`capture ${capturePackets} UDP packets on lo`, 'wall', ms, 'ms');
  bench.record(`capture ${capturePackets} UDP packets on lo`, 'rate', (got / ms) * 1000, 'packets/s');
  bench.record(
    `capture ${capturePackets} UDP packets on lo`,
    'bench process cpu per packet (sender included)',
    (cpu.user + cpu.system) / Math.max(1, got),
    'us',
  );
}

try {
  codecCase();
  if (process.getuid?.() === 0) {
    await startCase();
    await captureCase();
  } else bench.note('not root: tcpdump cases skipped');
} finally {
  bench.finish('PacketCapture: pcap decoding + pcapng writing, tcpdump start and a capture on lo');
}
