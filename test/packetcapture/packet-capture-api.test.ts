// The PacketCapture CRD and the agent's KubePacketCaptureApi on a real kube-apiserver: the schema's
// defaults and refusals (CEL rules and patterns, as kube-apiserver words them), the informer, status
// writes that keep unchanged conditions' transition times and skip writes that change nothing, the
// file server Secret and remote Pod addresses.
import { fileURLToPath } from 'node:url';
import { KubePacketCaptureApi } from '@antrea-ts/agent';
import { PACKET_CAPTURE_FILE_SERVER_SECRET, type PacketCapture } from '@antrea-ts/apis';
import { installCrds, type KubeCluster, startKube } from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const NS = 'kube-system';

let kube: KubeCluster;
let api: KubePacketCaptureApi;

const pcJson = (name: string, spec: object) =>
  JSON.stringify({ apiVersion: 'crd.antrea.io/v1alpha1', kind: 'PacketCapture', metadata: { name }, spec });
const create = (name: string, spec: object) =>
  kube.kubectl(['create', '-f', '-'], { input: pcJson(name, spec) });
const get = async (name: string) =>
  JSON.parse(await kube.kubectl(['get', 'packetcapture', name, '-o', 'json'])) as PacketCapture;
const refusal = async (name: string, spec: object) => {
  try {
    await create(name, spec);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${name} was accepted`);
};

beforeAll(async () => {
  kube = await startKube({ logger });
  await installCrds(kube, [crdDir]);
  api = new KubePacketCaptureApi(kube.kubeConfig, NS, logger);
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await kube?.stop();
});

const client = { pod: { name: 'client' } };
const firstN = { firstN: { number: 5 } };

describe('PacketCapture CRD', () => {
  it('fills Antrea’s defaults: timeout 60, SourceToDestination, IPv4, Namespace default', async () => {
    await create('defaults', { source: client, captureConfig: firstN, packet: { protocol: 'TCP' } });
    const pc = await get('defaults');
    expect(pc.spec).toMatchObject({
      timeout: 60,
      direction: 'SourceToDestination',
      source: { pod: { namespace: 'default', name: 'client' } },
      packet: { ipFamily: 'IPv4', protocol: 'TCP' },
    });
  });

  it('refuses specs a capture cannot run, saying why', async () => {
    expect(await refusal('no-pod', { source: { ip: '10.0.0.1' }, captureConfig: firstN })).toContain(
      'set source.pod or destination.pod: the capture runs on the Node of one of them',
    );
    expect(await refusal('no-spec-ends', { captureConfig: firstN })).toContain(
      'set source.pod or destination.pod',
    );
    expect(
      await refusal('point', { source: client, capturePoint: 'Destination', captureConfig: firstN }),
    ).toContain("capturePoint 'Destination' needs destination.pod");
    expect(await refusal('both', { source: { ...client, ip: '10.0.0.1' }, captureConfig: firstN })).toContain(
      'set pod or ip, not both',
    );
    expect(await refusal('no-first-n', { source: client, captureConfig: {} })).toContain('firstN');
    expect(await refusal('zero', { source: client, captureConfig: { firstN: { number: 0 } } })).toContain(
      'spec.captureConfig.firstN.number',
    );
    expect(await refusal('long', { source: client, captureConfig: firstN, timeout: 301 })).toContain(
      'spec.timeout',
    );
    expect(
      await refusal('bad-ip', { source: client, destination: { ip: '10.0.0' }, captureConfig: firstN }),
    ).toContain('spec.destination.ip');
    const headers = { tcp: { dstPort: 80 }, icmp: {} };
    expect(
      await refusal('headers', {
        source: client,
        captureConfig: firstN,
        packet: { transportHeader: headers },
      }),
    ).toContain('set at most one of tcp, udp, icmp and icmpv6');
    expect(
      await refusal('port', {
        source: client,
        captureConfig: firstN,
        packet: { transportHeader: { udp: { dstPort: 70000 } } },
      }),
    ).toContain('spec.packet.transportHeader.udp.dstPort');
    for (const url of ['ftp://10.0.0.1:21/x', 'sftp://10.0.0.1/upload']) {
      expect(await refusal('url', { source: client, captureConfig: firstN, fileServer: { url } })).toContain(
        'spec.fileServer.url',
      );
    }
    await create('ipv6-url', {
      source: client,
      captureConfig: firstN,
      fileServer: { url: 'sftp://[fd00::1]:22/upload' },
    });
  });
});

describe('KubePacketCaptureApi', () => {
  it('sees captures come and go, writes status keeping unchanged conditions’ times, skips no-op writes', async () => {
    const seen: string[] = [];
    await api.watch({ upsert: (pc) => seen.push(`+${pc.metadata.name}`), remove: (n) => seen.push(`-${n}`) });
    await create('watched', { source: client, captureConfig: firstN });
    const until = async (what: string, cond: () => boolean | Promise<boolean>) => {
      for (let i = 0; i < 300 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 100));
      expect(await cond(), what).toBe(true);
    };
    await until('add event', () => seen.includes('+watched'));

    const t1 = '2026-01-01T00:00:00.000Z';
    const t2 = '2026-01-01T00:00:09.000Z';
    const started = {
      type: 'PacketCaptureStarted' as const,
      status: 'True' as const,
      reason: 'Started',
      message: '',
    };
    await api.writeStatus('watched', {
      numberCaptured: 0,
      filePath: '',
      conditions: [
        { ...started, lastTransitionTime: t1 },
        {
          type: 'PacketCaptureComplete',
          status: 'False',
          reason: 'Progressing',
          message: '',
          lastTransitionTime: t1,
        },
      ],
    });
    const rv = (await get('watched')).metadata.resourceVersion;
    // Only the times differ: nothing is written.
    await api.writeStatus('watched', {
      numberCaptured: 0,
      filePath: '',
      conditions: [
        { ...started, lastTransitionTime: t2 },
        {
          type: 'PacketCaptureComplete',
          status: 'False',
          reason: 'Progressing',
          message: '',
          lastTransitionTime: t2,
        },
      ],
    });
    expect((await get('watched')).metadata.resourceVersion).toBe(rv);
    await api.writeStatus('watched', {
      numberCaptured: 5,
      filePath: 'antrea-agent-n1:/tmp/antrea/packetcapture/packets/watched.pcapng',
      conditions: [
        { ...started, lastTransitionTime: t2 },
        {
          type: 'PacketCaptureComplete',
          status: 'True',
          reason: 'Succeed',
          message: '',
          lastTransitionTime: t2,
        },
      ],
    });
    const done = await get('watched');
    expect(done.status?.numberCaptured).toBe(5);
    expect(done.status?.filePath).toBe('antrea-agent-n1:/tmp/antrea/packetcapture/packets/watched.pcapng');
    expect(done.status?.conditions?.map((c) => `${c.type}/${c.reason}/${c.lastTransitionTime}`)).toEqual([
      `PacketCaptureStarted/Started/${t1}`,
      `PacketCaptureComplete/Succeed/${t2}`,
    ]);
    // kubectl's columns read the conditions.
    const row = await kube.kubectl(['get', 'packetcapture', 'watched', '--no-headers']);
    expect(row.trim().split(/\s+/).slice(2)).toEqual(['5', 'True', 'True']);

    await kube.kubectl(['delete', 'packetcapture', 'watched']);
    await until('delete event', () => seen.includes('-watched'));
  });

  it('reads the file server Secret and Pod addresses', async () => {
    await expect(api.fileServerCredentials()).rejects.toThrow(
      `Secret ${NS}/${PACKET_CAPTURE_FILE_SERVER_SECRET} does not exist`,
    );
    await kube.kubectl([
      'create',
      'secret',
      'generic',
      PACKET_CAPTURE_FILE_SERVER_SECRET,
      '-n',
      NS,
      '--from-literal=username=capture',
      '--from-literal=password=s3cret pass',
    ]);
    expect(await api.fileServerCredentials()).toEqual({ username: 'capture', password: 's3cret pass' });
    expect(await api.podIps('default', 'nobody')).toEqual([]);
  });
});
