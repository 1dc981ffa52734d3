// Captures with tcpdump on a Node interface (a Pod's host-side veth): the filter expression, the
// first `count` matching packets, written to us as a pcap stream (-w -, flushed per packet with -U,
// delivered at once with --immediate-mode) and decoded here. The agent runs in the Node's network
// namespace, so tcpdump sees the Pod's interface as the agent does.
import { spawn } from 'node:child_process';
import { AgentError } from '../errors.js';
import { type CapturedPacket, PcapStreamReader } from './pcap-stream.js';
import { CAPTURE_SNAP_LENGTH } from './pcapng.js';

export interface CaptureRequest {
  readonly device: string;
  readonly filter: string;
  readonly count: number;
  /** Ends the capture early (timeout, the PacketCapture deleted). */
  readonly signal: AbortSignal;
  /** Called once the capture is running (tcpdump has opened the interface). */
  readonly onListening?: () => void;
}

/** Where packets come from; tests may use a double. */
export interface PacketCapturer {
  /** Yields matching packets until `count` were seen, the signal aborts, or capturing fails (throws). */
  capture(request: CaptureRequest): AsyncIterable<CapturedPacket>;
}

const failed = (message: string) => new AgentError('AGENT_PACKETCAPTURE_FAILED', message);

export class TcpdumpCapturer implements PacketCapturer {
  constructor(private readonly binary = 'tcpdump') {}

  async *capture(r: CaptureRequest): AsyncIterable<CapturedPacket> {
    if (r.signal.aborted) return;
    const child = spawn(
      this.binary,
      ['-i', r.device, '-s', String(CAPTURE_SNAP_LENGTH), '-n', '-U', '--immediate-mode'].concat([
        '-c',
        String(r.count),
        '-w',
        '-',
        r.filter,
      ]),
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const kill = () => child.kill('SIGTERM');
    r.signal.addEventListener('abort', kill, { once: true });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      if (stderr.length < 4096) stderr += s;
      if (/listening on/.test(s)) r.onListening?.();
    });
    const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code }));
    });
    const reader = new PcapStreamReader();
    let seen = 0;
    try {
      for await (const chunk of child.stdout) {
        for (const p of reader.push(chunk as Buffer)) {
          seen++;
          yield p;
        }
      }
      const { code, error } = await exited;
      if (error) throw failed(`cannot run ${this.binary}: ${error.message}`);
      // Killed by our signal: the caller knows why; otherwise tcpdump stops only after `count` packets.
      if (r.signal.aborted || (code === 0 && seen >= r.count)) return;
      const why = stderr
        .trim()
        .split('\n')
        .filter((l) => !/listening on|packets? (captured|received|dropped)/.test(l));
      throw failed(`tcpdump on ${r.device} exited with ${code}: ${why.join('; ') || 'no message'}`);
    } finally {
      r.signal.removeEventListener('abort', kill);
      if (child.exitCode === null && child.signalCode === null) kill();
    }
  }
}
