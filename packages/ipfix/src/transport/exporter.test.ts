import net from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { TemplateRecord } from '../codec/message.js';
import { ANTREA_ENTERPRISE_ID, infoElement } from '../registry.js';
import { IpfixCollector } from './collector.js';
import { IpfixExporter, type IpfixTransport } from './exporter.js';

const logger = pino({ level: 'silent' });
const template: TemplateRecord = {
  templateId: 256,
  elements: [infoElement('sourceTransportPort'), infoElement('sourcePodName', ANTREA_ENTERPRISE_ID)],
};
const records = (n: number, from = 0) => Array.from({ length: n }, (_, i) => [from + i, `pod-${from + i}`]);

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function pair(
  transport: IpfixTransport,
  extra: { now?: () => number; templateRefreshMs?: number } = {},
) {
  const collector = new IpfixCollector({ host: '127.0.0.1', logger });
  const port = await collector.start();
  cleanup.push(() => collector.stop());
  const exporter = new IpfixExporter({
    host: '127.0.0.1',
    port,
    transport,
    domainId: 42,
    templates: [template],
    logger,
    maxMessageBytes: 200,
    ...extra,
  });
  cleanup.push(() => exporter.close());
  await exporter.connect();
  return { collector, exporter };
}

describe.each(['tcp', 'udp'] as const)('IpfixExporter over %s', (transport) => {
  it('sends the templates, then packs records into messages with record-counting sequence numbers', async () => {
    const { collector, exporter } = await pair(transport);
    await exporter.send(template, records(30));
    await collector.waitFor(() => collector.records().length === 30 || undefined, 5000);
    const msgs = collector.messages.map((m) => m.message);
    expect(msgs[0]!.templates.map((t) => t.templateId)).toEqual([256]);
    const data = msgs.filter((m) => m.records.length > 0);
    expect(data.length).toBeGreaterThan(1); // 200-byte messages cannot hold 30 records
    let expected = 0;
    for (const m of data) {
      expect(m.sequence).toBe(expected);
      expect(m.domainId).toBe(42);
      expected += m.records.length;
    }
    expect(collector.records().map((r) => r.values.sourcePodName)).toEqual(records(30).map((r) => r[1]));
  });
});

describe('IpfixExporter sessions', () => {
  it('UDP: resends the templates once the refresh period has passed', async () => {
    let now = 1_000_000;
    const { collector, exporter } = await pair('udp', { now: () => now, templateRefreshMs: 60_000 });
    await exporter.send(template, records(1));
    now += 59_000;
    await exporter.send(template, records(1, 1));
    now += 2_000;
    await exporter.send(template, records(1, 2));
    await collector.waitFor(() => collector.records().length === 3 || undefined, 5000);
    const kinds = collector.messages.map((m) => (m.message.templates.length ? 'T' : 'D'));
    expect(kinds.join('')).toBe('TDDTD');
  });

  it('TCP: a collector that drops the connection fails the next send; a new session starts with templates', async () => {
    const { collector, exporter } = await pair('tcp');
    await exporter.send(template, records(1));
    await collector.waitFor(() => collector.records().length === 1 || undefined, 5000);
    collector.dropConnections();
    await new Promise((r) => setTimeout(r, 100));
    expect(exporter.connected).toBe(false);
    await expect(exporter.send(template, records(1))).rejects.toMatchObject({ code: 'IPFIX_SEND' });
    await exporter.connect();
    await exporter.send(template, records(1, 5));
    await collector.waitFor(() => collector.records().length === 2 || undefined, 5000);
    const last = collector.messages.slice(-2).map((m) => m.message);
    expect(last[0]!.templates).toHaveLength(1);
    expect(last[1]!.sequence).toBe(0);
    expect(last[1]!.records[0]!.values.sourceTransportPort).toBe(5);
  });

  it('TCP: a collector that stops reading fails the send after writeTimeoutMs instead of holding it', async () => {
    const accepted: net.Socket[] = [];
    const server = net.createServer((s) => accepted.push(s.pause()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => {
      for (const s of accepted) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const exporter = new IpfixExporter({
      host: '127.0.0.1',
      port: (server.address() as net.AddressInfo).port,
      transport: 'tcp',
      domainId: 1,
      templates: [template],
      logger,
      writeTimeoutMs: 200,
    });
    cleanup.push(() => exporter.close());
    await exporter.connect();
    // 3 MB a call: the socket's buffers fill within a few calls, then a write waits for good.
    const big = Array.from({ length: 50 }, (_, i) => [i, 'x'.repeat(60_000)]);
    let err: unknown;
    for (let i = 0; i < 100 && err === undefined; i++) {
      await exporter.send(template, big).catch((e: unknown) => {
        err = e;
      });
    }
    expect(err).toMatchObject({ code: 'IPFIX_SEND' });
    expect(exporter.connected).toBe(false);
  });

  it('TCP: connect fails with IPFIX_SEND when nobody listens', async () => {
    const collector = new IpfixCollector({ host: '127.0.0.1', logger });
    const port = await collector.start();
    await collector.stop();
    const exporter = new IpfixExporter({
      host: '127.0.0.1',
      port,
      transport: 'tcp',
      domainId: 1,
      templates: [template],
      logger,
    });
    await expect(exporter.connect()).rejects.toMatchObject({ code: 'IPFIX_SEND' });
    expect(exporter.connected).toBe(false);
  });
});
