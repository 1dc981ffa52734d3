import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PacketCapture, PacketCaptureSpec, PacketCaptureStatus } from '@antrea-ts/apis';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PodInterface } from '../cniserver/interface-store.js';
import type { BundleUploader } from '../supportbundle/bundle-uploader.js';
import type { PacketCaptureApi, PacketCaptureHandlers } from './kube-packet-capture-api.js';
import { PacketCaptureController } from './packet-capture-controller.js';
import type { CapturedPacket } from './pcap-stream.js';
import { pcapngHeader, pcapngPacket } from './pcapng.js';
import type { CaptureRequest, PacketCapturer } from './tcpdump-capturer.js';

const pod = (name: string, ip: string, hostIfName: string): PodInterface => ({
  containerId: `c-${name}`,
  podName: name,
  podNamespace: 'default',
  hostIfName,
  ifName: 'eth0',
  netns: `/var/run/netns/${name}`,
  ipCidr: `${ip}/24`,
  ip,
  mac: '02:00:00:00:00:01',
  ofport: 3,
});

class FakeApi implements PacketCaptureApi {
  readonly writes: Array<{ name: string; status: PacketCaptureStatus }> = [];
  handlers: PacketCaptureHandlers | undefined;
  remotePods = new Map<string, string[]>([['default/server', ['10.244.2.5']]]);
  async watch(h: PacketCaptureHandlers) {
    this.handlers = h;
  }
  async stop() {}
  async writeStatus(name: string, status: PacketCaptureStatus) {
    this.writes.push({ name, status });
  }
  async fileServerCredentials() {
    return { username: 'u', password: 'p' };
  }
  async podIps(namespace: string, name: string) {
    return this.remotePods.get(`${namespace}/${name}`) ?? [];
  }
  /** "type=status/reason" of each write for `name`, with numberCaptured. */
  trail(name: string): string[] {
    return this.writes
      .filter((w) => w.name === name)
      .map(
        (w) =>
          `${w.status.numberCaptured} ${(w.status.conditions ?? []).map((c) => `${c.type.replace('PacketCapture', '')}=${c.status}/${c.reason}`).join(' ')}`,
      );
  }
  last(name: string): PacketCaptureStatus | undefined {
    return this.writes.filter((w) => w.name === name).at(-1)?.status;
  }
}

/** Hands out packets the test pushes; the requests it got are kept. */
class FakeCapturer implements PacketCapturer {
  readonly requests: CaptureRequest[] = [];
  private feeds = new Map<string, (p: CapturedPacket | undefined) => void>();
  async *capture(r: CaptureRequest): AsyncIterable<CapturedPacket> {
    this.requests.push(r);
    const queue: CapturedPacket[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    this.feeds.set(r.device, (p) => {
      if (p) queue.push(p);
      else ended = true;
      wake?.();
    });
    r.signal.addEventListener('abort', () => wake?.());
    r.onListening?.();
    while (!r.signal.aborted) {
      const p = queue.shift();
      if (p) {
        yield p;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  push(device: string, n: number): void {
    for (let i = 0; i < n; i++)
      this.feeds.get(device)?.({
        timestampNs: BigInt(i),
        originalLength: 4,
        data: Buffer.from([i, i, i, i]),
      });
  }
  end(device: string): void {
    this.feeds.get(device)?.(undefined);
  }
}

const pc = (name: string, spec: Partial<PacketCaptureSpec>): PacketCapture => ({
  apiVersion: 'crd.antrea.io/v1alpha1',
  kind: 'PacketCapture',
  metadata: { name, uid: `uid-${name}` },
  spec: { captureConfig: { firstN: { number: 3 } }, timeout: 60, ...spec },
});

const until = async (what: string, cond: () => boolean) => {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

let dir: string;
let api: FakeApi;
let capturer: FakeCapturer;
let uploads: Array<{ url: string; fileName: string; archive: Buffer; user?: string | undefined }>;
let uploadFails: string | undefined;
let controller: PacketCaptureController;
const uploader: BundleUploader = {
  async upload(server, auth, fileName, archive) {
    if (uploadFails) throw new Error(uploadFails);
    uploads.push({ url: server.url, fileName, archive, user: auth.basicAuthentication?.username });
  },
};

function start(maxConcurrent?: number) {
  controller = new PacketCaptureController({
    nodeName: 'n1',
    agentPodName: 'antrea-agent-n1',
    api,
    pods: () => [pod('client', '10.244.1.2', 'client-1a2b3c'), pod('other', '10.244.1.3', 'other-4d5e6f')],
    capturer,
    uploader,
    directory: dir,
    logger: pino({ level: 'silent' }),
    ...(maxConcurrent ? { maxConcurrent } : {}),
  });
  return controller.start();
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ats-pccontroller-'));
  api = new FakeApi();
  capturer = new FakeCapturer();
  uploads = [];
  uploadFails = undefined;
});
afterEach(async () => {
  await controller.stop();
  rmSync(dir, { recursive: true, force: true });
});

const flow = {
  source: { pod: { namespace: 'default', name: 'client' } },
  destination: { pod: { namespace: 'default', name: 'server' } },
  packet: { protocol: 'TCP', transportHeader: { tcp: { dstPort: 8080 } } },
};

describe('PacketCaptureController', () => {
  it('captures N packets on the source Pod’s interface into <dir>/<name>.pcapng and completes', async () => {
    await start();
    api.handlers?.upsert(pc('pc1', flow));
    await until('capture', () => capturer.requests.length === 1);
    const r = capturer.requests[0]!;
    expect(r.device).toBe('client-1a2b3c');
    expect(r.count).toBe(3);
    // The remote destination's address came from the API.
    expect(r.filter).toBe('ip proto 6 and src host 10.244.1.2 and dst host 10.244.2.5 and dst port 8080');
    capturer.push('client-1a2b3c', 3);
    await until('complete', () => api.last('pc1')?.conditions?.length === 2 && api.trail('pc1').length === 2);
    expect(api.trail('pc1')).toEqual([
      '0 Started=True/Started Complete=False/Progressing',
      '3 Started=True/Started Complete=True/Succeed',
    ]);
    const path = join(dir, 'pc1.pcapng');
    expect(api.last('pc1')?.filePath).toBe(`antrea-agent-n1:${path}`);
    const packets = [0, 1, 2].map((i) =>
      pcapngPacket({ timestampNs: BigInt(i), originalLength: 4, data: Buffer.from([i, i, i, i]) }),
    );
    expect(readFileSync(path)).toEqual(Buffer.concat([pcapngHeader({ name: 'client-1a2b3c' }), ...packets]));
    // Deleting the PacketCapture removes the file.
    api.handlers?.remove('pc1');
    await until('file removed', () => !existsSync(path));
  });

  it('leaves PacketCaptures of other Nodes’ Pods and finished ones alone', async () => {
    await start();
    api.handlers?.upsert(pc('remote', { source: { pod: { name: 'server' } } }));
    const done = pc('done', flow);
    done.status = { conditions: [{ type: 'PacketCaptureComplete', status: 'True', reason: 'Succeed' }] };
    api.handlers?.upsert(done);
    // capturePoint Destination on a local destination Pod is ours.
    api.handlers?.upsert(
      pc('at-dst', {
        source: { ip: '10.0.0.9' },
        destination: { pod: { name: 'other' } },
        capturePoint: 'Destination',
      }),
    );
    await until('at-dst capture', () => capturer.requests.length === 1);
    expect(capturer.requests[0]?.device).toBe('other-4d5e6f');
    expect(capturer.requests[0]?.filter).toBe('ip and src host 10.0.0.9 and dst host 10.244.1.3');
    expect(api.writes.map((w) => w.name)).not.toContain('remote');
    expect(api.writes.map((w) => w.name)).not.toContain('done');
  });

  it('times out with what it has, uploads it and reports where', async () => {
    await start();
    api.handlers?.upsert(
      pc('slow', {
        ...flow,
        timeout: 1,
        fileServer: { url: 'sftp://10.0.0.1:22/upload', hostPublicKey: 'AAAA' },
      }),
    );
    await until('capture', () => capturer.requests.length === 1);
    capturer.push('client-1a2b3c', 1);
    await until('complete', () => (api.last('slow')?.conditions?.length ?? 0) === 3);
    expect(api.trail('slow').at(-1)).toBe(
      '1 Started=True/Started Complete=True/Timeout FileUploaded=True/Succeed',
    );
    expect(api.last('slow')?.conditions?.[1]?.message).toBe('timed out after 1 s: 1 of 3 packets captured');
    expect(api.last('slow')?.filePath).toBe('sftp://10.0.0.1:22/upload/slow.pcapng');
    expect(uploads).toEqual([
      {
        url: 'sftp://10.0.0.1:22/upload',
        fileName: 'slow.pcapng',
        archive: readFileSync(join(dir, 'slow.pcapng')),
        user: 'u',
      },
    ]);
  });

  it('reports a failed upload, and a timeout with nothing captured has nothing to upload', async () => {
    uploadFails = 'failed to upload file after 5 attempts: authentication as "u" failed at 10.0.0.1:22';
    await start();
    const fileServer = { url: 'sftp://10.0.0.1:22/upload' };
    api.handlers?.upsert(pc('upfail', { ...flow, fileServer }));
    await until('capture', () => capturer.requests.length === 1);
    capturer.push('client-1a2b3c', 3);
    await until('complete', () => (api.last('upfail')?.conditions?.length ?? 0) === 3);
    const uploaded = api.last('upfail')?.conditions?.[2];
    expect([uploaded?.status, uploaded?.reason, uploaded?.message]).toEqual(['False', 'Failed', uploadFails]);
    expect(api.last('upfail')?.filePath).toBe(`antrea-agent-n1:${join(dir, 'upfail.pcapng')}`);

    api.handlers?.upsert(pc('empty', { source: { pod: { name: 'other' } }, timeout: 1, fileServer }));
    await until('timeout', () => api.trail('empty').some((t) => t.includes('Timeout')));
    expect(api.trail('empty').at(-1)).toBe('0 Started=True/Started Complete=True/Timeout');
    expect(api.last('empty')?.filePath).toBe('');
  });

  it('refuses a spec it cannot capture with the reason, without capturing', async () => {
    await start();
    api.handlers?.upsert(pc('bad', { ...flow, packet: { protocol: 'SCTPX' } }));
    api.handlers?.upsert(
      pc('nopod', { source: { pod: { name: 'client' } }, destination: { pod: { name: 'ghost' } } }),
    );
    await until('reports', () => api.trail('bad').length === 1 && api.trail('nopod').length === 1);
    expect(api.trail('bad')).toEqual(['0 Started=False/NotStarted']);
    expect(api.last('bad')?.conditions?.[0]?.message).toMatch(/^invalid protocol string "SCTPX"/);
    expect(api.last('nopod')?.conditions?.[0]?.message).toBe(
      'cannot find IP with IPv4 address family for Pod default/ghost',
    );
    expect(capturer.requests).toHaveLength(0);
  });

  it('runs at most maxConcurrent captures; the next waits as Pending and starts when one ends', async () => {
    await start(1);
    api.handlers?.upsert(pc('first', { source: { pod: { name: 'client' } } }));
    await until('first capture', () => capturer.requests.length === 1);
    api.handlers?.upsert(pc('second', { source: { pod: { name: 'other' } } }));
    await until('second pending', () => api.trail('second').length === 1);
    expect(api.trail('second')).toEqual(['0 Started=False/NotStarted']);
    expect(api.last('second')?.conditions?.[0]?.message).toBe(
      '1 captures are running on Node n1, at most 1 at a time: waiting',
    );
    capturer.push('client-1a2b3c', 3);
    await until('second capture', () => capturer.requests.length === 2);
    expect(capturer.requests[1]?.device).toBe('other-4d5e6f');
    capturer.push('other-4d5e6f', 3);
    await until('second complete', () => api.trail('second').at(-1)?.includes('Succeed') ?? false);
  });
});
