import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AggregationProcess, MAX_CORRELATION_RETRIES } from './aggregation.js';
import { FlowType, type FlowValues } from './flow-record.js';
import { type AgentRecordSpec, agentRecord } from './testing-records.js';

const logger = pino({ level: 'silent' });
const client = { name: 'client', namespace: 'ns', node: 'node-1' };
const server = { name: 'server', namespace: 'ns', node: 'node-2' };
const tuple = { src: '10.10.0.2', dst: '10.10.1.3', sport: 40000, dport: 8080, start: 100 };
const svc = { clusterIp: '10.96.0.10', port: 80, portName: 'ns/web:http' };

function setup() {
  let now = 1_000_000;
  const agg = new AggregationProcess({
    activeTimeoutMs: 5000,
    inactiveTimeoutMs: 9000,
    logger,
    now: () => now,
  });
  const out: FlowValues[] = [];
  return {
    agg,
    out,
    advance: (ms: number) => {
      now += ms;
    },
    expire: () => {
      const before = out.length;
      agg.expire((r) => out.push({ ...r }));
      return out.slice(before);
    },
  };
}

const src = (s: Partial<AgentRecordSpec> = {}) =>
  agentRecord({ ...tuple, flowType: FlowType.InterNode, end: 105, srcPod: client, ...s });
const dst = (s: Partial<AgentRecordSpec> = {}) =>
  agentRecord({ ...tuple, flowType: FlowType.InterNode, end: 105, dstPod: server, ...s });

describe('AggregationProcess', () => {
  it('merges the two Nodes’ halves of an inter-Node connection into one record, in either order', () => {
    for (const order of [
      [src, dst],
      [dst, src],
    ]) {
      const t = setup();
      t.agg.add(order[0]!({ service: svc, octets: 800n, packets: 8n }));
      expect(t.expire()).toEqual([]);
      t.agg.add(order[1]!({ octets: 1000n, packets: 10n }));
      const [r, ...rest] = t.expire();
      expect(rest).toEqual([]);
      expect(r).toMatchObject({
        sourcePodName: 'client',
        sourceNodeName: 'node-1',
        destinationPodName: 'server',
        destinationPodNamespace: 'ns',
        destinationNodeName: 'node-2',
        destinationServicePortName: 'ns/web:http',
        destinationServicePort: 80,
        destinationClusterIPv4: '10.96.0.10',
        flowType: FlowType.InterNode,
      });
      const srcFirst = order[0] === src;
      expect(r!.octetTotalCountFromSourceNode).toBe(srcFirst ? 800n : 1000n);
      expect(r!.octetTotalCountFromDestinationNode).toBe(srcFirst ? 1000n : 800n);
      expect(r!.octetTotalCount).toBe(1000n);
      expect(t.agg.stats()).toMatchObject({ flows: 1, correlated: 1 });
    }
  });

  it('exports intra-Node and to-external records at once, with both Nodes’ counters the same', () => {
    const t = setup();
    t.agg.add(
      agentRecord({
        ...tuple,
        flowType: FlowType.IntraNode,
        end: 104,
        srcPod: client,
        dstPod: server,
        octets: 400n,
      }),
    );
    t.agg.add(
      agentRecord({ ...tuple, dst: '8.8.8.8', flowType: FlowType.ToExternal, end: 104, srcPod: client }),
    );
    const out = t.expire();
    expect(out.map((r) => r.flowType)).toEqual([FlowType.IntraNode, FlowType.ToExternal]);
    expect(out[0]).toMatchObject({
      octetTotalCountFromSourceNode: 400n,
      octetTotalCountFromDestinationNode: 400n,
      throughput: 800n,
    });
  });

  it('sums deltas between exports, resets them after, and exports again only with new records', () => {
    const t = setup();
    t.agg.add(src({ octets: 100n, packets: 1n }));
    t.agg.add(dst({ octets: 100n, packets: 1n }));
    expect(t.expire()).toHaveLength(1);
    t.advance(1000);
    t.agg.add(src({ end: 106, octets: 300n, prevOctets: 100n, packets: 3n, prevPackets: 1n }));
    t.agg.add(src({ end: 107, octets: 600n, prevOctets: 300n, packets: 6n, prevPackets: 3n }));
    expect(t.expire()).toEqual([]); // the active timeout has not passed
    t.advance(5000);
    const [r] = t.expire();
    expect(r).toMatchObject({
      octetDeltaCountFromSourceNode: 500n,
      octetTotalCountFromSourceNode: 600n,
      octetTotalCount: 600n,
      octetDeltaCount: 500n,
      flowEndSecondsFromSourceNode: 107,
      flowEndSeconds: 107,
      // (600 - 300) octets * 8 over 1 s since the previous record of that Node
      throughputFromSourceNode: 2400n,
      throughput: 2400n,
    });
    t.advance(5000);
    expect(t.expire()).toEqual([]); // nothing new
  });

  it('ignores a record older than the last one from its Node', () => {
    const t = setup();
    t.agg.add(src({ end: 110, octets: 500n }));
    t.agg.add(dst({ end: 110, octets: 500n }));
    t.expire();
    t.agg.add(src({ end: 108, octets: 900n }));
    t.advance(5000);
    const [r] = t.expire();
    expect(r!.octetTotalCountFromSourceNode).toBe(500n);
  });

  it('keeps the end of the connection once a Node reported it', () => {
    const t = setup();
    t.agg.add(src());
    t.agg.add(dst({ end: 106, endReason: 3, tcpState: 'TIME_WAIT' }));
    t.agg.add(src({ end: 107, endReason: 2 }));
    expect(t.expire()[0]).toMatchObject({ flowEndReason: 3, tcpState: 'ESTABLISHED' });
  });

  it('drops a half whose other Node never reports, after the retries', () => {
    const t = setup();
    t.agg.add(src());
    t.agg.add(src({ end: 106 })); // the same Node again: still not correlated
    for (let i = 0; i <= MAX_CORRELATION_RETRIES; i++) {
      t.advance(5000);
      expect(t.expire()).toEqual([]);
    }
    expect(t.agg.stats()).toMatchObject({ flows: 0, uncorrelatedDropped: 1, correlated: 0 });
  });

  it('does not wait for the other Node when the source Node’s policy dropped the connection', () => {
    const t = setup();
    t.agg.add({ ...src(), egressNetworkPolicyRuleAction: 2, egressNetworkPolicyName: 'deny' });
    expect(t.expire()).toMatchObject([{ egressNetworkPolicyName: 'deny', destinationPodName: '' }]);
  });

  it('forgets a flow after the inactive timeout, so a later record starts a new one', () => {
    const t = setup();
    t.agg.add(src());
    t.agg.add(dst());
    t.expire();
    t.advance(9000);
    t.expire();
    expect(t.agg.stats().flows).toBe(0);
  });

  it('between deadlines still exports a new flow or one just correlated at the next round', () => {
    const t = setup();
    const intra = (sport: number) =>
      agentRecord({
        ...tuple,
        sport,
        end: 105,
        flowType: FlowType.IntraNode,
        srcPod: client,
        dstPod: client,
      });
    t.agg.add(intra(1));
    expect(t.expire()).toHaveLength(1);
    t.advance(1000);
    expect(t.expire()).toEqual([]); // nothing due: the round does nothing
    t.agg.add(intra(2));
    expect(t.expire()).toMatchObject([{ sourceTransportPort: 2 }]);
    t.agg.add(src({ sport: 3 }));
    t.advance(1000);
    expect(t.expire()).toEqual([]);
    t.agg.add(dst({ sport: 3 }));
    expect(t.expire()).toMatchObject([
      { sourceTransportPort: 3, sourcePodName: 'client', destinationPodName: 'server' },
    ]);
    // The first flow's active timeout still comes round (no news: nothing to export, it stays).
    t.advance(3000);
    expect(t.expire()).toEqual([]);
    expect(t.agg.stats().flows).toBe(3);
    t.advance(9000);
    t.expire();
    expect(t.agg.stats().flows).toBe(0);
  });
});
