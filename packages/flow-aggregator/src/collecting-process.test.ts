import dgram from 'node:dgram';
import { ANTREA_AGENT_IPV4_TEMPLATE, type DecodedDataRecord, IpfixExporter } from '@antrea-ts/ipfix';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CollectingProcess } from './collecting-process.js';
import { templateValues } from './exporter/aggregated-template.js';
import { FlowType } from './flow-record.js';
import { agentRecord } from './testing-records.js';

const logger = pino({ level: 'silent' });
const T = ANTREA_AGENT_IPV4_TEMPLATE;
const record = (sport: number) =>
  templateValues(
    T,
    agentRecord({
      src: '10.10.0.2',
      dst: '10.10.0.3',
      sport,
      dport: 80,
      start: 1,
      end: 2,
      flowType: FlowType.IntraNode,
    }),
  );

describe('CollectingProcess over UDP', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('keeps templates only for exporters that announced some, and at most maxUdpExporters of them', async () => {
    const got: DecodedDataRecord[] = [];
    const cp = new CollectingProcess({
      host: '127.0.0.1',
      port: 0,
      transports: ['udp'],
      logger,
      maxUdpExporters: 2,
      onRecords: (records) => got.push(...records),
    });
    const port = await cp.start();
    cleanup.push(() => cp.stop());

    // Noise from three addresses: counted, nothing kept.
    for (let i = 0; i < 3; i++) {
      const s = dgram.createSocket('udp4');
      cleanup.push(() => new Promise<void>((r) => s.close(() => r())));
      await new Promise<void>((r) => s.send(Buffer.from('not ipfix at all'), port, '127.0.0.1', () => r()));
    }
    await vi.waitFor(() => expect(cp.decodeErrors).toBe(3));
    expect(cp.udpExporters).toBe(0);

    // Three agents, one after the other: the first, longest silent, is forgotten.
    const exporters: IpfixExporter[] = [];
    for (let i = 0; i < 3; i++) {
      const exporter = new IpfixExporter({
        host: '127.0.0.1',
        port,
        transport: 'udp',
        domainId: i + 1,
        templates: [T],
        logger,
      });
      await exporter.connect();
      cleanup.push(() => exporter.close());
      exporters.push(exporter);
      await exporter.send(T, [record(50_000 + i)]);
      await vi.waitFor(() => expect(got).toHaveLength(i + 1));
    }
    expect(got.map((r) => r.values.sourceTransportPort)).toEqual([50_000, 50_001, 50_002]);
    expect(cp.udpExporters).toBe(2);
    // Its next records wait for its templates; the others' still decode.
    await exporters[0]!.send(T, [record(50_010)]);
    await exporters[2]!.send(T, [record(50_012)]);
    await vi.waitFor(() => expect(got).toHaveLength(4));
    expect(got[3]!.values.sourceTransportPort).toBe(50_012);
  });
});
