import net from 'node:net';
import { IpfixCollector } from '@antrea-ts/ipfix';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlowExporter, observationDomainId } from './flow-exporter.js';
import { IPV4_TEMPLATE } from './flow-record.js';
import { FlowType, podCidrClassifier } from './flow-type.js';
import { conntrackLine, fixedMetadata } from './testing.js';

const logger = pino({ level: 'silent' });
let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setup(transport: 'tcp' | 'udp' = 'tcp', onPollCycle?: (seconds: number) => void) {
  const collector = new IpfixCollector({ host: '127.0.0.1', logger });
  const port = await collector.start();
  cleanup.push(() => collector.stop());
  let now = Date.UTC(2026, 0, 1);
  let text = '';
  const exporter = new FlowExporter({
    nodeName: 'node-a',
    collector: { host: '127.0.0.1', port, transport },
    pollIntervalMs: 1000,
    activeTimeoutMs: 5000,
    idleTimeoutMs: 15_000,
    dumpConntrack: async () => text,
    zone: 65520,
    serviceMarkBit: 0x10,
    metadata: fixedMetadata(
      { '10.10.0.2': 'default/client', '10.10.0.3': 'prod/web' },
      { '10.96.0.10:80': 'prod/web:http' },
      { 9: { policy: 'egress-web', namespace: 'default', type: 2, rule: 'allow-80' } },
    ),
    classify: podCidrClassifier(() => ['10.10.0.0/24', '10.10.1.0/24']),
    networkPolicyOnly: false,
    logger,
    now: () => now,
    ...(onPollCycle && { onPollCycle }),
  });
  cleanup.push(() => exporter.stop());
  return {
    collector,
    exporter,
    setDump: (...lines: string[]) => {
      text = lines.join('\n');
    },
    advance: (ms: number) => {
      now += ms;
    },
    startSec: Math.floor(now / 1000),
  };
}

describe('FlowExporter to a real IPFIX collector', () => {
  it('sends Antrea’s template and a record per due connection, every field as Antrea fills it', async () => {
    const { collector, exporter, setDump, advance, startSec } = await setup();
    setDump(
      conntrackLine({
        src: '10.10.0.2',
        dst: '10.96.0.10',
        sport: 40000,
        dport: 80,
        endpoint: '10.10.0.3',
        endpointPort: 8080,
        packets: [10, 8],
        bytes: [1000, 5000],
        mark: 0x13,
        labels: 9n << 32n,
      }),
      conntrackLine({ src: '10.10.0.2', dst: '10.10.1.7', sport: 40001, dport: 443, proto: 'udp' }),
      conntrackLine({ src: '10.10.0.2', dst: '8.8.8.8', sport: 40002, dport: 53, proto: 'udp' }),
      conntrackLine({ src: '10.10.0.2', dst: '10.10.0.1', sport: 40003, dport: 53, proto: 'udp' }),
    );
    await exporter.poll();
    advance(5000);
    expect(await exporter.exportDue()).toBe(3); // the one to the gateway is not exported
    await collector.waitFor(() => collector.records().length === 3 || undefined, 5000);
    const first = collector.messages[0]!.message;
    expect(first.domainId).toBe(observationDomainId('node-a'));
    expect(first.templates[0]!.fields.map((f) => f.element.name)).toEqual(
      IPV4_TEMPLATE.elements.map((e) => e.name),
    );
    const [svc, inter, external] = collector.records().map((r) => r.values);
    expect(svc).toEqual({
      flowStartSeconds: startSec,
      flowEndSeconds: startSec,
      flowEndReason: 2,
      sourceTransportPort: 40000,
      destinationTransportPort: 8080,
      protocolIdentifier: 6,
      packetTotalCount: 10n,
      octetTotalCount: 1000n,
      packetDeltaCount: 10n,
      octetDeltaCount: 1000n,
      sourceIPv4Address: '10.10.0.2',
      destinationIPv4Address: '10.10.0.3',
      reversePacketTotalCount: 8n,
      reverseOctetTotalCount: 5000n,
      reversePacketDeltaCount: 8n,
      reverseOctetDeltaCount: 5000n,
      sourcePodName: 'client',
      sourcePodNamespace: 'default',
      sourceNodeName: 'node-a',
      destinationPodName: 'web',
      destinationPodNamespace: 'prod',
      destinationNodeName: 'node-a',
      destinationServicePort: 80,
      destinationServicePortName: 'prod/web:http',
      ingressNetworkPolicyName: '',
      ingressNetworkPolicyNamespace: '',
      ingressNetworkPolicyType: 0,
      ingressNetworkPolicyRuleName: '',
      ingressNetworkPolicyRuleAction: 0,
      egressNetworkPolicyName: 'egress-web',
      egressNetworkPolicyNamespace: 'default',
      egressNetworkPolicyType: 2,
      egressNetworkPolicyRuleName: 'allow-80',
      egressNetworkPolicyRuleAction: 1,
      tcpState: 'ESTABLISHED',
      flowType: FlowType.intraNode,
      egressName: '',
      egressIP: '',
      egressNodeName: '',
      proxySnatPort: 0,
      destinationClusterIPv4: '10.96.0.10',
      proxySnatIPv4: '0.0.0.0',
      destinationServiceIPv4: '10.96.0.10',
    });
    expect(inter).toMatchObject({
      flowType: FlowType.interNode,
      destinationPodName: '',
      destinationNodeName: '',
      destinationClusterIPv4: '0.0.0.0',
      tcpState: '',
    });
    expect(external).toMatchObject({ flowType: FlowType.toExternal, destinationIPv4Address: '8.8.8.8' });
  });

  it('keeps due connections while the collector is away and reconnects with the template', async () => {
    const { collector, exporter, setDump, advance } = await setup();
    setDump(conntrackLine({ src: '10.10.0.2', dst: '10.10.0.3', sport: 1, dport: 2, packets: [1, 1] }));
    await exporter.poll();
    advance(5000);
    await exporter.exportDue();
    await collector.waitFor(() => collector.records().length === 1 || undefined, 5000);
    collector.dropConnections();
    await new Promise((r) => setTimeout(r, 100));
    setDump(conntrackLine({ src: '10.10.0.2', dst: '10.10.0.3', sport: 1, dport: 2, packets: [5, 4] }));
    await exporter.poll();
    advance(5000);
    await exporter.exportDue();
    await collector.waitFor(() => collector.records().length === 2 || undefined, 5000);
    expect(exporter.stats().reconnections).toBe(2);
    const last = collector.messages.slice(-2).map((m) => m.message);
    expect(last[0]!.templates).toHaveLength(1);
    expect(last[1]!.records[0]!.values).toMatchObject({ packetDeltaCount: 4n, reversePacketDeltaCount: 3n });
  });

  it('gives the event loop turns while it parses a large dump and exports many records', async () => {
    const { collector, exporter, setDump, advance } = await setup();
    await exporter.exportDue(); // opens the session: nothing below waits on a connect
    setDump(
      ...Array.from({ length: 2500 }, (_, i) =>
        conntrackLine({ src: '10.10.0.2', dst: '10.10.1.7', sport: 10_000 + i, dport: 80, packets: [1, 1] }),
      ),
    );
    // Each step is awaited with an immediate queued before it: it ran only if the step yielded.
    const turnDuring = async (step: () => Promise<unknown>): Promise<boolean> => {
      let turned = false;
      setImmediate(() => {
        turned = true;
      });
      await step();
      return turned;
    };
    expect(await turnDuring(() => exporter.poll())).toBe(true);
    expect(exporter.stats().connections).toBe(2500);
    advance(5000);
    expect(await turnDuring(() => exporter.exportDue())).toBe(true);
    await collector.waitFor(() => collector.records().length === 2500 || undefined, 5000);
  });

  it('stop() ends a tick stuck sending to a collector that stopped reading', async () => {
    const accepted: net.Socket[] = [];
    const server = net.createServer((s) => accepted.push(s.pause()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => {
      for (const s of accepted) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    // Long Pod names: ~700-byte records, ~10 MB in all, more than the sockets' buffers hold.
    const long = (name: string) => `${name}-${'x'.repeat(240)}`;
    let now = Date.UTC(2026, 0, 1);
    const exporter = new FlowExporter({
      nodeName: 'node-a',
      collector: { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, transport: 'tcp' },
      pollIntervalMs: 60_000,
      activeTimeoutMs: 0,
      idleTimeoutMs: 15_000,
      dumpConntrack: async () =>
        Array.from({ length: 15_000 }, (_, i) =>
          conntrackLine({
            src: '10.10.0.2',
            dst: '10.10.0.3',
            sport: 10_000 + i,
            dport: 80,
            packets: [1, 1],
          }),
        ).join('\n'),
      zone: 65520,
      serviceMarkBit: 0x10,
      metadata: fixedMetadata({
        '10.10.0.2': `default/${long('client')}`,
        '10.10.0.3': `prod/${long('web')}`,
      }),
      classify: podCidrClassifier(() => ['10.10.0.0/24']),
      networkPolicyOnly: false,
      logger,
      now: () => now++,
    });
    exporter.start();
    // Stuck: some records went out, and no more for a while.
    let seen = -1;
    await vi.waitUntil(
      () => {
        const n = exporter.stats().recordsExported;
        const stuck = n > 0 && n === seen && n < 15_000;
        seen = n;
        return stuck;
      },
      { timeout: 8000, interval: 300 },
    );
    // Without closing the session first, stop() would wait out the 10 s write timeout.
    const t0 = performance.now();
    await exporter.stop();
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(exporter.stats().recordsExported).toBeLessThan(15_000);
  }, 30_000);

  it('tells each poll’s duration (the conntrack poll-cycle metric), once the dump is applied', async () => {
    const cycles: number[] = [];
    const { exporter, setDump } = await setup('tcp', (seconds) => cycles.push(seconds));
    setDump(conntrackLine({ src: '10.10.0.2', dst: '10.10.0.3', sport: 40000, dport: 80 }));
    await exporter.poll();
    await exporter.poll();
    expect(cycles).toHaveLength(2);
    expect(cycles.every((s) => s >= 0 && s < 60)).toBe(true);
    expect(exporter.stats().polls).toBe(2);
  });

  it('FNV-1 observation domain id (Antrea’s genObservationID)', () => {
    expect(observationDomainId('')).toBe(0x811c9dc5);
    expect(observationDomainId('a')).toBe(0x050c5d7e);
  });
});
