// Antrea's records as a third-party IPFIX collector reads them: nfcapd (nfdump) decodes the
// standard fields of our template (addresses, ports, protocol, the delta counters and their RFC 5103
// reverse forms, flowEndReason) and skips the Antrea enterprise fields, including variable-length
// ones. Needs nfdump (Debian package `nfdump`).
import { IPV4_TEMPLATE, ipv4RecordValues } from '@antrea-ts/agent';
import { IpfixExporter } from '@antrea-ts/ipfix';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Nfcapd, startNfcapd } from '../framework/nfcapd.js';

const logger = pino({ level: 'silent' });
type ExpiredFlow = Parameters<typeof ipv4RecordValues>[0];

const flow = (i: number, podName: string): ExpiredFlow => {
  const now = Date.now();
  return {
    endReason: i % 2 ? 2 : 1,
    conn: {
      key: String(i),
      protocol: i % 2 ? 6 : 17,
      srcIp: `10.10.0.${10 + i}`,
      srcPort: 40_000 + i,
      dstIp: '10.10.1.3',
      dstPort: 8080,
      origDstIp: '10.96.0.10',
      origDstPort: 80,
      zone: 65520,
      mark: 0x13,
      labels: 0n,
      startMs: now - 10_000,
      stopMs: now,
      origPackets: 100 + i,
      origBytes: 10_000 + i,
      replyPackets: 50 + i,
      replyBytes: 200_000 + i,
      prevPackets: 40,
      prevBytes: 4000,
      prevReplyPackets: 20,
      prevReplyBytes: 80_000,
      tcpState: i % 2 ? 'ESTABLISHED' : '',
      prevTcpState: '',
      status: 0,
      isPresent: true,
      isActive: true,
      readyToDelete: false,
      lastExportMs: now,
      srcPod: { name: podName, namespace: 'default' },
      dstPod: undefined,
      servicePortName: 'prod/web:http',
      ingressRule: undefined,
      egressRule: undefined,
      activeExpireMs: 0,
      idleExpireMs: 0,
      heapIndex: -1,
    },
  };
};

describe('our IPFIX records read by nfcapd', () => {
  let nfcapd: Nfcapd;

  beforeAll(async () => {
    nfcapd = await startNfcapd('nfcapd');
  });

  afterAll(async () => {
    await nfcapd?.remove();
  });

  it('decodes addresses, ports, protocol, counters and end reason of every record, in sequence', async () => {
    const exporter = new IpfixExporter({
      host: '127.0.0.1',
      port: nfcapd.port,
      transport: 'udp',
      domainId: 4242,
      templates: [IPV4_TEMPLATE],
      logger,
    });
    await exporter.connect();
    // 40 records: several UDP messages; one Pod name needs the 3-byte length form.
    const records = Array.from({ length: 40 }, (_, i) =>
      ipv4RecordValues(flow(i, i === 3 ? 'p'.repeat(300) : `client-${i}`), 'node-a', 1),
    );
    await exporter.send(IPV4_TEMPLATE, records);
    exporter.close();
    // nfcapd writes its file when it stops.
    const { log, rows } = await nfcapd.finish('%sa|%da|%sp|%dp|%pr|%ipkt|%ibyt|%opkt|%obyt');
    expect(log).toMatch(/Flows: 40,/);
    expect(log).toMatch(/Sequence Errors: 0, Bad Packets: 0/);
    expect(rows).toHaveLength(40);
    const byPort = new Map(rows.map((r) => [Number(r[2]), r]));
    for (let i = 0; i < 40; i++) {
      expect(byPort.get(40_000 + i)).toEqual([
        `10.10.0.${10 + i}`,
        '10.10.1.3',
        String(40_000 + i),
        '8080',
        i % 2 ? 'TCP' : 'UDP',
        String(100 + i - 40),
        String(10_000 + i - 4000),
        String(50 + i - 20),
        String(200_000 + i - 80_000),
      ]);
    }
    // flowEndReason (IANA 136): nfdump prints it in its extended log.
    expect(log).toMatch(/end reason\s+=\s+0x02 active timeout/);
    expect(log).toMatch(/end reason\s+=\s+0x01 idle timeout/);
  });
});
