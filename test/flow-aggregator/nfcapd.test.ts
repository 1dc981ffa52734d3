// The Flow Aggregator's output read by a third-party collector: agents' halves of inter-Node
// connections (and intra-Node ones) go in over TCP, the aggregated records go out over UDP to
// nfdump's nfcapd, which must see one flow per connection, in sequence, with the 5-tuple and the
// aggregated delta counters; it skips the enterprise fields (Pods, Nodes, the per-Node counters).
import {
  agentRecord,
  FlowAggregator,
  FlowType,
  IpfixFlowExporter,
  templateValues,
} from '@antrea-ts/flow-aggregator';
import { waitFor } from '@antrea-ts/harness';
import { ANTREA_AGENT_IPV4_TEMPLATE, IpfixExporter } from '@antrea-ts/ipfix';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Nfcapd, startNfcapd } from '../framework/nfcapd.js';

const logger = pino({ level: 'silent' });
const AGENT_TEMPLATE = ANTREA_AGENT_IPV4_TEMPLATE;
const INTER = 20;
const INTRA = 5;

describe('aggregated records read by nfcapd', () => {
  let nfcapd: Nfcapd;

  beforeAll(async () => {
    nfcapd = await startNfcapd('fa-nfcapd');
  });

  afterAll(async () => {
    await nfcapd?.remove();
  });

  it('gets one flow per connection, both halves of an inter-Node one merged', async () => {
    const fa = new FlowAggregator({
      host: '127.0.0.1',
      port: 0,
      transports: ['tcp'],
      activeTimeoutMs: 60_000,
      inactiveTimeoutMs: 90_000,
      expiryIntervalMs: 3_600_000, // rounds run by flush() below only
      logger,
      exporters: [
        new IpfixFlowExporter({
          host: '127.0.0.1',
          port: nfcapd.port,
          transport: 'udp',
          observationDomainId: 99,
          templateRefreshMs: 600_000,
          maxMessageBytes: 0,
          podLabels: false,
          logger,
        }),
      ],
    });
    await fa.start();
    try {
      const conn = (i: number) => ({
        src: `10.10.0.${10 + i}`,
        dst: i < INTER ? '10.10.1.3' : '10.10.0.3',
        sport: 41_000 + i,
        dport: 8080,
        start: 100,
        end: 110,
        octets: BigInt(1000 + i),
        packets: BigInt(10 + i),
      });
      const client = (i: number) => ({ name: `client-${i}`, namespace: 'ns', node: 'node-1' });
      const server = { name: 'server', namespace: 'ns', node: 'node-2' };
      const node1 = Array.from({ length: INTER + INTRA }, (_, i) =>
        i < INTER
          ? agentRecord({ ...conn(i), flowType: FlowType.InterNode, srcPod: client(i) })
          : agentRecord({
              ...conn(i),
              flowType: FlowType.IntraNode,
              srcPod: client(i),
              dstPod: { ...server, node: 'node-1' },
            }),
      );
      const node2 = Array.from({ length: INTER }, (_, i) =>
        agentRecord({ ...conn(i), flowType: FlowType.InterNode, dstPod: server }),
      );
      for (const [domainId, records] of [
        [1, node1],
        [2, node2],
      ] as const) {
        const agent = new IpfixExporter({
          host: '127.0.0.1',
          port: fa.port,
          transport: 'tcp',
          domainId,
          templates: [AGENT_TEMPLATE],
          logger,
        });
        await agent.connect();
        await agent.send(
          AGENT_TEMPLATE,
          records.map((r) => templateValues(AGENT_TEMPLATE, r)),
        );
        agent.close();
      }
      await waitFor(
        'both Nodes’ records in',
        async () => fa.stats().recordsIn === 2 * INTER + INTRA || undefined,
        10_000,
        20,
      );
      await fa.flush();
      expect(fa.stats()).toMatchObject({ exported: INTER + INTRA, correlated: INTER });
    } finally {
      await fa.stop();
    }
    const { log, rows: flows } = await nfcapd.finish('%sa|%da|%sp|%dp|%pr|%ipkt|%ibyt');
    expect(log).toMatch(new RegExp(`Flows: ${INTER + INTRA},`));
    expect(log).toMatch(/Sequence Errors: 0, Bad Packets: 0/);
    const rows = new Map(flows.map((r) => [Number(r[2]), r]));
    expect(rows.size).toBe(INTER + INTRA);
    for (let i = 0; i < INTER + INTRA; i++) {
      expect(rows.get(41_000 + i)).toEqual([
        `10.10.0.${10 + i}`,
        i < INTER ? '10.10.1.3' : '10.10.0.3',
        String(41_000 + i),
        '8080',
        'TCP',
        String(10 + i),
        String(1000 + i),
      ]);
    }
  });
});
