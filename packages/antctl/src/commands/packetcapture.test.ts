import type { PacketCapture } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../client/api-client.js';
import type { ModeDecision } from '../mode.js';
import { runAntctl } from '../program.js';
import { captureDeps, fakeConnections } from '../testing/fakes.js';
import { buildPacketCapture, packetFromCaptureFlow, tcpFlagsMatcher } from './packetcapture.js';

const PC = '/apis/crd.antrea.io/v1alpha1/packetcaptures';

describe('packetFromCaptureFlow (Antrea parseFlow)', () => {
  it('maps family, protocol, ports, TCP flags and ICMP messages', () => {
    expect(packetFromCaptureFlow('tcp,tcp_dst=80,tcp_flags=+syn-ack')).toEqual({
      ipFamily: 'IPv4',
      protocol: 6,
      transportHeader: { tcp: { dstPort: 80, flags: [{ value: 2, mask: 18 }] } },
    });
    expect(packetFromCaptureFlow('udp, udp_src=1234,udp_dst=53')).toEqual({
      ipFamily: 'IPv4',
      protocol: 17,
      transportHeader: { udp: { srcPort: 1234, dstPort: 53 } },
    });
    expect(packetFromCaptureFlow('icmp,icmp_type=icmp-unreach,icmp_code=1')).toEqual({
      ipFamily: 'IPv4',
      protocol: 1,
      transportHeader: { icmp: { messages: [{ type: 'icmp-unreach', code: 1 }] } },
    });
    expect(packetFromCaptureFlow('icmpv6,icmpv6_type=129')).toEqual({
      ipFamily: 'IPv6',
      protocol: 58,
      transportHeader: { icmpv6: { messages: [{ type: 129 }] } },
    });
  });

  it('refuses what Antrea refuses', () => {
    expect(() => packetFromCaptureFlow('a=b=c')).toThrow('a=b=c is not valid in flow');
    expect(() => packetFromCaptureFlow('tcp,tcp_dst=70000')).toThrow(/invalid tcp_dst "70000"/);
    expect(() => packetFromCaptureFlow('icmp,icmp_code=1')).toThrow(
      'icmp_type must be specified when icmp_code is provided',
    );
    expect(() => packetFromCaptureFlow('icmp,icmp_type=ping')).toThrow('unknown icmp_type: ping');
    expect(() => tcpFlagsMatcher('+syn-bogus')).toThrow('invalid TCP flag bogus');
    expect(() => tcpFlagsMatcher('syn')).toThrow("invalid character 's' in tcp_flags");
    expect(() => tcpFlagsMatcher('+')).toThrow("missing TCP flag after '+'");
    expect(tcpFlagsMatcher('+fin')).toEqual({ value: 1, mask: 1 });
  });
});

describe('buildPacketCapture', () => {
  it('names the capture after its ends and fills the spec from the flags', () => {
    const pc = buildPacketCapture(
      { source: 'prod/web', destination: '10.0.0.9', number: '5', capturePoint: 'Source', direction: 'Both' },
      30,
      () => 'abcd1234',
    );
    expect(pc.metadata.name).toBe('prod-web-10.0.0.9-abcd1234');
    expect(pc.spec).toEqual({
      captureConfig: { firstN: { number: 5 } },
      timeout: 30,
      source: { pod: { namespace: 'prod', name: 'web' } },
      destination: { ip: '10.0.0.9' },
      capturePoint: 'Source',
      direction: 'Both',
    });
    expect(buildPacketCapture({ destination: 'db', nowait: true }, 60, () => 'x').metadata.name).toBe('db');
  });

  it('refuses flags that make no capture', () => {
    expect(() => buildPacketCapture({}, 60, () => 'x')).toThrow(/Please provide source/);
    expect(() => buildPacketCapture({ source: '10.0.0.1', destination: '10.0.0.2' }, 60, () => 'x')).toThrow(
      'one of source and destination must be a Pod',
    );
    expect(() => buildPacketCapture({ source: 'a', number: '0' }, 60, () => 'x')).toThrow(
      'packet number should be larger than 0',
    );
    expect(() => buildPacketCapture({ source: 'a' }, 301, () => 'x')).toThrow(
      'timeout cannot be longer than 300s',
    );
  });
});

async function packetCapture(argv: string[], finalStatus: PacketCapture['status'], afterPolls = 2) {
  let created: PacketCapture | undefined;
  let polls = 0;
  let fakes: ReturnType<typeof fakeConnections> | undefined;
  const deps = captureDeps({
    connect: (mode: ModeDecision) => {
      fakes = fakeConnections(mode);
      fakes.kubeFake
        .on('POST', PC, (req: ApiRequest) => {
          created = req.body as PacketCapture;
          return { status: 201, body: created };
        })
        .on('GET', /^\/apis\/crd.antrea.io\/v1alpha1\/packetcaptures\/.+/, () => {
          polls++;
          const running = {
            conditions: [{ type: 'PacketCaptureStarted', status: 'True', reason: 'Started' }],
          };
          return { body: { ...created, status: polls >= afterPolls ? finalStatus : running } };
        });
      return fakes;
    },
  });
  const code = await runAntctl(argv, deps);
  return { code, out: deps.stdoutText(), err: deps.stderrText(), created, polls };
}

const complete = (reason: string, message = '') => ({
  numberCaptured: reason === 'Succeed' ? 5 : 0,
  filePath: reason === 'Succeed' ? 'antrea-agent-n1:/tmp/antrea/packetcapture/packets/x.pcapng' : '',
  conditions: [
    { type: 'PacketCaptureStarted' as const, status: 'True' as const, reason: 'Started' },
    { type: 'PacketCaptureComplete' as const, status: 'True' as const, reason, message },
  ],
});

describe('antctl packetcapture against a fake Kubernetes API', () => {
  it('creates the CR, polls until Complete and says where the file is', async () => {
    const r = await packetCapture(
      ['packetcapture', '-S', 'web', '-D', 'db', '-n', '5', '-f', 'tcp,tcp_dst=80'],
      complete('Succeed'),
    );
    expect(r.code).toBe(0);
    expect(r.created?.spec).toMatchObject({
      source: { pod: { namespace: 'default', name: 'web' } },
      destination: { pod: { namespace: 'default', name: 'db' } },
      captureConfig: { firstN: { number: 5 } },
      timeout: 60,
      direction: 'SourceToDestination',
      packet: { protocol: 6, transportHeader: { tcp: { dstPort: 80 } } },
    });
    expect(r.polls).toBe(2);
    expect(r.out).toContain(`PacketCapture Name: ${r.created?.metadata.name}\n`);
    expect(r.out).toContain('Captured packets: 5\n');
    expect(r.out).toContain(
      'Captured packets file: antrea-agent-n1:/tmp/antrea/packetcapture/packets/x.pcapng\n',
    );
  });

  it('fails with the capture’s reason on a timeout, and returns at once with --nowait', async () => {
    const r = await packetCapture(
      ['packetcapture', '-S', 'web', '-D', 'db'],
      complete('Timeout', 'timed out after 60 s: 0 of 1 packets captured'),
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain('PacketCapture web-db-');
    expect(r.err).toContain('Timeout: timed out after 60 s: 0 of 1 packets captured');
    const n = await packetCapture(['packetcapture', '-S', 'web', '--nowait'], complete('Succeed'));
    expect(n.code).toBe(0);
    expect(n.polls).toBe(0);
    expect(n.out).toBe('PacketCapture Name: web\n');
  });
});
