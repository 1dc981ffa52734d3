// The agent half of PacketCapture (Antrea pkg/agent/packetcapture): the agent of the Node where the
// capture point's Pod runs (source.pod by default, else destination.pod) captures the first N
// packets matching the spec on that Pod's host-side interface, writes them to
// <directory>/<name>.pcapng, uploads the file to spec.fileServer over SFTP with the credentials of
// the antrea-packetcapture-fileserver-auth Secret, and reports status with Antrea's conditions. At
// most 16 captures run at once per Node (Antrea's limit); more wait their turn.
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PacketCapture, PacketCapturePodReference } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { PodInterface } from '../cniserver/interface-store.js';
import { AgentError } from '../errors.js';
import type { BundleUploader } from '../supportbundle/bundle-uploader.js';
import { buildCaptureFilter } from './capture-filter.js';
import { type CaptureState, captureStatus } from './capture-status.js';
import type { PacketCaptureApi } from './kube-packet-capture-api.js';
import { pcapngHeader, pcapngPacket } from './pcapng.js';
import type { PacketCapturer } from './tcpdump-capturer.js';

/** Antrea's maxConcurrentCaptures. */
export const MAX_CONCURRENT_CAPTURES = 16;
/** Antrea's captureStatusUpdatePeriod: numberCaptured is reported at most this often while capturing. */
const PROGRESS_INTERVAL_MS = 10_000;
const DEFAULT_TIMEOUT_S = 60;

export interface PacketCaptureControllerOptions {
  readonly nodeName: string;
  /** The agent Pod's name: status.filePath of a file kept on the Node is `<agentPodName>:<path>`. */
  readonly agentPodName: string;
  readonly api: PacketCaptureApi;
  /** This Node's Pods (the interface store). */
  readonly pods: () => readonly PodInterface[];
  readonly capturer: PacketCapturer;
  /** SFTP upload, shared with SupportBundleCollection. */
  readonly uploader: BundleUploader;
  /** Where capture files are written (Antrea: /tmp/antrea/packetcapture/packets). */
  readonly directory: string;
  readonly logger: Logger;
  readonly maxConcurrent?: number;
  readonly progressIntervalMs?: number;
  readonly now?: () => Date;
}

/** One PacketCapture this Node captures. */
interface Capture {
  readonly name: string;
  readonly uid: string;
  readonly pc: PacketCapture;
  readonly device: string;
  readonly abort: AbortController;
  state: CaptureState;
  filter?: string;
  /** The local file, once created. */
  path?: string;
  deleted: boolean;
  /** Status writes, in order. */
  writes: Promise<void>;
}

const captureTarget = (pc: PacketCapture): PacketCapturePodReference | undefined => {
  const point = pc.spec.capturePoint ?? (pc.spec.source?.pod ? 'Source' : 'Destination');
  return point === 'Source' ? pc.spec.source?.pod : pc.spec.destination?.pod;
};

const isComplete = (pc: PacketCapture) =>
  pc.status?.conditions?.some((c) => c.type === 'PacketCaptureComplete' && c.status === 'True') ?? false;

export class PacketCaptureController {
  private readonly log: Logger;
  private readonly captures = new Map<string, Capture>();
  /** Captures waiting for a free slot, oldest first. */
  private readonly waiting: Capture[] = [];
  private readonly runs = new Set<Promise<void>>();
  private running = 0;
  private stopped = false;
  private readonly now: () => Date;

  constructor(private readonly o: PacketCaptureControllerOptions) {
    this.log = o.logger.child({ component: 'packetcapture' });
    this.now = o.now ?? (() => new Date());
  }

  async start(signal?: AbortSignal): Promise<void> {
    await mkdir(this.o.directory, { recursive: true, mode: 0o700 });
    await this.o.api.watch({ upsert: (pc) => this.upsert(pc), remove: (name) => this.remove(name) }, signal);
  }

  /** Ends running captures (their files stay), stops watching. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.o.api.stop();
    for (const c of this.captures.values()) c.abort.abort();
    await Promise.allSettled([...this.runs]);
  }

  upsert(pc: PacketCapture): void {
    const name = pc.metadata.name ?? '';
    const uid = pc.metadata.uid ?? name;
    const known = this.captures.get(name);
    // A running or finished capture ignores spec updates, as Antrea's does.
    if (known?.uid === uid || this.stopped) return;
    if (known) this.remove(name);
    const target = captureTarget(pc);
    const device = target
      ? this.o
          .pods()
          .find((p) => p.podName === target.name && p.podNamespace === (target.namespace ?? 'default'))
          ?.hostIfName
      : undefined;
    // Not this Node's Pod: another agent captures. Completed by an earlier run of this agent: done.
    if (!device || isComplete(pc)) return;
    const capture: Capture = {
      name,
      uid,
      pc,
      device,
      abort: new AbortController(),
      state: { phase: 'Pending', numberCaptured: 0 },
      deleted: false,
      writes: Promise.resolve(),
    };
    this.captures.set(name, capture);
    this.track(this.prepare(capture));
  }

  remove(name: string): void {
    const c = this.captures.get(name);
    if (!c) return;
    this.captures.delete(name);
    c.deleted = true;
    c.abort.abort();
    const i = this.waiting.indexOf(c);
    if (i >= 0) this.waiting.splice(i, 1);
    // A running capture removes its file when it ends; a finished one's goes now.
    if (c.state.phase === 'Complete') void this.removeFile(c);
  }

  /** Captures known on this Node and their states (for tests and the API). */
  states(): ReadonlyMap<string, CaptureState> {
    return new Map([...this.captures].map(([n, c]) => [n, c.state]));
  }

  private track(run: Promise<void>): void {
    this.runs.add(run);
    void run.finally(() => this.runs.delete(run));
  }

  private report(c: Capture): void {
    if (c.deleted) return;
    const status = captureStatus(c.state, c.pc.spec.fileServer !== undefined, this.now());
    c.writes = c.writes
      .then(() => this.o.api.writeStatus(c.name, status))
      .catch((err: unknown) => this.log.warn({ err, name: c.name }, 'writing PacketCapture status failed'));
  }

  /** Resolves addresses and the filter; starts the capture or queues it. */
  private async prepare(c: Capture): Promise<void> {
    try {
      const family = c.pc.spec.packet?.ipFamily ?? 'IPv4';
      const ipOf = async (end: 'source' | 'destination') => {
        const peer = c.pc.spec[end];
        if (peer?.ip) return peer.ip;
        if (!peer?.pod) return undefined;
        return this.podIp(peer.pod, family);
      };
      c.filter = buildCaptureFilter({
        packet: c.pc.spec.packet,
        srcIp: await ipOf('source'),
        dstIp: await ipOf('destination'),
        direction: c.pc.spec.direction,
      });
    } catch (err) {
      c.state = { ...c.state, notStarted: err instanceof Error ? err.message : String(err) };
      this.report(c);
      return;
    }
    if (c.deleted) return;
    const limit = this.o.maxConcurrent ?? MAX_CONCURRENT_CAPTURES;
    if (this.running >= limit) {
      this.waiting.push(c);
      c.state = {
        ...c.state,
        notStarted: `${this.running} captures are running on Node ${this.o.nodeName}, at most ${limit} at a time: waiting`,
      };
      this.report(c);
      return;
    }
    this.track(this.run(c));
  }

  private async podIp(ref: PacketCapturePodReference, family: 'IPv4' | 'IPv6'): Promise<string> {
    const namespace = ref.namespace ?? 'default';
    const local = this.o.pods().find((p) => p.podName === ref.name && p.podNamespace === namespace);
    const ips = local && family === 'IPv4' ? [local.ip] : await this.o.api.podIps(namespace, ref.name);
    const ip = ips.find((a) => a.includes(':') === (family === 'IPv6'));
    if (!ip) {
      throw new AgentError(
        'AGENT_PACKETCAPTURE_INVALID',
        `cannot find IP with ${family} address family for Pod ${namespace}/${ref.name}`,
      );
    }
    return ip;
  }

  private async run(c: Capture): Promise<void> {
    this.running++;
    const spec = c.pc.spec;
    const wanted = spec.captureConfig.firstN?.number ?? 0;
    const timeoutS = spec.timeout ?? DEFAULT_TIMEOUT_S;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      c.abort.abort();
    }, timeoutS * 1000);
    const log = this.log.child({ name: c.name, device: c.device });
    log.info({ filter: c.filter, packets: wanted, timeoutS }, 'starting packet capture');
    let captureError: CaptureState['captureError'];
    let captured = 0;
    try {
      c.path = join(this.o.directory, `${c.name}.pcapng`);
      const file = await open(c.path, 'w', 0o600);
      try {
        await file.write(pcapngHeader({ name: c.device }));
        let lastReport = Date.now();
        const packets = this.o.capturer.capture({
          device: c.device,
          filter: c.filter ?? '',
          count: wanted,
          signal: c.abort.signal,
          onListening: () => {
            c.state = { phase: 'Started', numberCaptured: captured };
            this.report(c);
          },
        });
        for await (const p of packets) {
          await file.write(pcapngPacket(p));
          captured++;
          if (captured >= wanted) break;
          if (Date.now() - lastReport >= (this.o.progressIntervalMs ?? PROGRESS_INTERVAL_MS)) {
            lastReport = Date.now();
            c.state = { phase: 'Started', numberCaptured: captured };
            this.report(c);
          }
        }
      } finally {
        await file.close();
      }
    } catch (err) {
      captureError = { reason: 'Failed', message: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
    if (!captureError && captured < wanted) {
      captureError = timedOut
        ? {
            reason: 'Timeout',
            message: `timed out after ${timeoutS} s: ${captured} of ${wanted} packets captured`,
          }
        : { reason: 'Failed', message: `capture stopped: ${captured} of ${wanted} packets captured` };
    }
    log.info({ captured, error: captureError?.message }, 'packet capture ended');
    if (c.deleted) {
      await this.removeFile(c);
    } else {
      let filePath: string | undefined;
      let uploadError: string | undefined;
      if (captured > 0 && c.path) {
        filePath = `${this.o.agentPodName}:${c.path}`;
        if (spec.fileServer) {
          try {
            await this.upload(c, spec.fileServer, c.path);
            filePath = `${spec.fileServer.url}/${c.name}.pcapng`;
          } catch (err) {
            uploadError = err instanceof Error ? err.message : String(err);
            log.warn({ err }, 'uploading the capture file failed');
          }
        }
      }
      c.state = { phase: 'Complete', numberCaptured: captured, filePath, captureError, uploadError };
      this.report(c);
      await c.writes;
    }
    this.running--;
    const next = this.waiting.shift();
    if (next && !this.stopped) {
      next.state = { phase: 'Pending', numberCaptured: 0 };
      this.track(this.run(next));
    }
  }

  private async upload(
    c: Capture,
    server: { url: string; hostPublicKey?: string },
    path: string,
  ): Promise<void> {
    const { username, password } = await this.o.api.fileServerCredentials();
    await this.o.uploader.upload(
      {
        url: server.url,
        ...(server.hostPublicKey ? { hostPublicKey: Buffer.from(server.hostPublicKey, 'base64') } : {}),
      },
      { basicAuthentication: { username, password } },
      `${c.name}.pcapng`,
      await readFile(path),
    );
  }

  private async removeFile(c: Capture): Promise<void> {
    if (!c.path) return;
    await rm(c.path, { force: true }).catch((err: unknown) =>
      this.log.warn({ err, path: c.path }, 'removing the capture file failed'),
    );
  }
}
