import type { Logger } from 'pino';
import { correlate } from './correlate.js';
import {
  big,
  type FlowValues,
  flowKey,
  isFromDestinationNode,
  isFromSourceNode,
  needsCorrelation,
  num,
} from './flow-record.js';

/** A record waiting for the other Node's half is given this many more active timeouts, then dropped. */
export const MAX_CORRELATION_RETRIES = 2;

const COUNTERS = ['packetTotalCount', 'octetTotalCount', 'packetDeltaCount', 'octetDeltaCount'];
const REVERSE_COUNTERS = COUNTERS.map((c) => `reverse${c[0]!.toUpperCase()}${c.slice(1)}`);
const ALL_COUNTERS = [...COUNTERS, ...REVERSE_COUNTERS];
type Side = 'SourceNode' | 'DestinationNode';
const SIDES: readonly Side[] = ['SourceNode', 'DestinationNode'];

/**
 * The elements the aggregation adds to the agents' records, zeroed. Spelled out as one literal so
 * every aggregated record gets them in one shape: added one by one under computed names, V8 turns
 * such wide objects into hash maps, which made taking a new flow ~10 times slower.
 */
function zeroAggregates(): FlowValues {
  return {
    packetTotalCountFromSourceNode: 0n,
    octetTotalCountFromSourceNode: 0n,
    packetDeltaCountFromSourceNode: 0n,
    octetDeltaCountFromSourceNode: 0n,
    reversePacketTotalCountFromSourceNode: 0n,
    reverseOctetTotalCountFromSourceNode: 0n,
    reversePacketDeltaCountFromSourceNode: 0n,
    reverseOctetDeltaCountFromSourceNode: 0n,
    packetTotalCountFromDestinationNode: 0n,
    octetTotalCountFromDestinationNode: 0n,
    packetDeltaCountFromDestinationNode: 0n,
    octetDeltaCountFromDestinationNode: 0n,
    reversePacketTotalCountFromDestinationNode: 0n,
    reverseOctetTotalCountFromDestinationNode: 0n,
    reversePacketDeltaCountFromDestinationNode: 0n,
    reverseOctetDeltaCountFromDestinationNode: 0n,
    throughput: 0n,
    reverseThroughput: 0n,
    throughputFromSourceNode: 0n,
    throughputFromDestinationNode: 0n,
    reverseThroughputFromSourceNode: 0n,
    reverseThroughputFromDestinationNode: 0n,
    flowEndSecondsFromSourceNode: 0,
    flowEndSecondsFromDestinationNode: 0,
  };
}

/** The elements the aggregation adds to Antrea's agent records, in the order our exporter sends them. */
export const AGGREGATED_ELEMENTS: readonly string[] = Object.keys(zeroAggregates());

/** One Node's element names: its counters paired with the agents' counter, its end time and throughput. */
interface SideNames {
  readonly counters: readonly (readonly [string, string])[];
  readonly end: string;
  readonly octets: string;
  readonly reverseOctets: string;
  readonly throughput: string;
  readonly reverseThroughput: string;
}
const sideNames = (side: Side): SideNames => ({
  counters: ALL_COUNTERS.map((c) => [c, `${c}From${side}`] as const),
  end: `flowEndSecondsFrom${side}`,
  octets: `octetTotalCountFrom${side}`,
  reverseOctets: `reverseOctetTotalCountFrom${side}`,
  throughput: `throughputFrom${side}`,
  reverseThroughput: `reverseThroughputFrom${side}`,
});
const PER_SIDE: Readonly<Record<Side, SideNames>> = {
  SourceNode: sideNames('SourceNode'),
  DestinationNode: sideNames('DestinationNode'),
};

export interface AggregationOptions {
  /** activeFlowRecordTimeout: a flow with new data is exported at least this often. */
  readonly activeTimeoutMs: number;
  /** inactiveFlowRecordTimeout: a flow no agent reported for this long is forgotten. */
  readonly inactiveTimeoutMs: number;
  readonly logger: Logger;
  /** Clock in ms. */
  readonly now?: () => number;
}

interface AggregatedFlow {
  /** The agents' elements, merged. */
  readonly values: FlowValues;
  /** The aggregation's elements (zeroAggregates' shape), kept apart so both objects stay compact. */
  readonly agg: FlowValues;
  /** Both halves are in, or the flow needs only one. */
  ready: boolean;
  retries: number;
  /** An agent record arrived since the last export. */
  updated: boolean;
  activeAt: number;
  inactiveAt: number;
}

export interface AggregationStats {
  readonly flows: number;
  readonly recordsIn: number;
  readonly correlated: number;
  readonly uncorrelatedDropped: number;
}

/**
 * The aggregation process of Antrea's Flow Aggregator (Aggregate mode): one record per connection
 * (the 5-tuple), the two Nodes' halves of an inter-Node connection merged into one, counters kept
 * per Node (`...FromSourceNode`, `...FromDestinationNode`) and as a whole, throughput from the
 * growth of the octet totals between records. `expire()` hands out the records whose active or
 * inactive timeout has passed; a record that needs no correlation is due at once, one that does is
 * due once its other half arrived, or dropped after MAX_CORRELATION_RETRIES more active timeouts.
 */
export class AggregationProcess {
  private readonly flows = new Map<string, AggregatedFlow>();
  private readonly now: () => number;
  private readonly log: Logger;
  /**
   * No flow is due before this time: expire() skips its scan until then. It may be earlier than
   * the real next deadline (add() only lowers it), never later.
   */
  private nextDueAt = Number.POSITIVE_INFINITY;
  private recordsIn = 0;
  private correlated = 0;
  private uncorrelatedDropped = 0;

  constructor(private readonly o: AggregationOptions) {
    this.now = o.now ?? Date.now;
    this.log = o.logger.child({ component: 'aggregation' });
  }

  stats(): AggregationStats {
    return {
      flows: this.flows.size,
      recordsIn: this.recordsIn,
      correlated: this.correlated,
      uncorrelatedDropped: this.uncorrelatedDropped,
    };
  }

  /** Takes one agent record. */
  add(record: FlowValues): void {
    this.recordsIn++;
    const now = this.now();
    const key = flowKey(record);
    const corr = needsCorrelation(record);
    const flow = this.flows.get(key);
    if (!flow) {
      const created = this.newFlow(record, corr, now);
      this.flows.set(key, created);
      this.nextDueAt = Math.min(this.nextDueAt, created.activeAt, created.inactiveAt);
      return;
    }
    const wasReady = flow.ready;
    if (corr) {
      if (!flow.ready && !sameNode(record, flow.values)) {
        correlate(flow.values, record);
        flow.ready = true;
        this.correlated++;
      }
      const fromSource = isFromSourceNode(record);
      aggregate(record, flow, fromSource ? ['SourceNode'] : ['DestinationNode']);
    } else {
      aggregate(record, flow, SIDES);
    }
    flow.updated = true;
    // A record that has just become whole goes out at the next expiry round.
    if (!wasReady && flow.ready) {
      flow.activeAt = now;
      this.nextDueAt = Math.min(this.nextDueAt, now);
    }
    flow.inactiveAt = now + this.o.inactiveTimeoutMs;
  }

  /**
   * Calls `emit` with a snapshot of every record due now, then clears their delta counters and
   * throughput; forgets flows past their inactive timeout.
   */
  expire(emit: (record: FlowValues) => void): void {
    const now = this.now();
    // Between deadlines there is nothing to do: no scan of every flow each round.
    if (now < this.nextDueAt) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [key, flow] of this.flows) {
      if (flow.activeAt > now && flow.inactiveAt > now) {
        next = Math.min(next, flow.activeAt, flow.inactiveAt);
        continue;
      }
      if (!flow.ready) {
        flow.retries++;
        if (flow.retries > MAX_CORRELATION_RETRIES) {
          this.flows.delete(key);
          this.uncorrelatedDropped++;
          this.log.debug({ key }, 'dropping a record whose other half never arrived');
        } else {
          flow.activeAt = now + this.o.activeTimeoutMs;
          flow.inactiveAt = now + this.o.inactiveTimeoutMs;
          next = Math.min(next, flow.activeAt, flow.inactiveAt);
        }
        continue;
      }
      if (flow.updated) {
        // Object.assign, not a spread: V8 builds a spread this wide as a hash map (~60 times slower here).
        emit(Object.assign({}, flow.values, flow.agg));
        resetDeltas(flow);
        flow.updated = false;
      }
      if (flow.inactiveAt <= now) {
        this.flows.delete(key);
        continue;
      }
      if (flow.activeAt <= now) flow.activeAt = now + this.o.activeTimeoutMs;
      next = Math.min(next, flow.activeAt, flow.inactiveAt);
    }
    this.nextDueAt = next;
  }

  private newFlow(record: FlowValues, corr: boolean, now: number): AggregatedFlow {
    const values: FlowValues = { ...record };
    const agg = zeroAggregates();
    const sides: readonly Side[] = corr
      ? isFromSourceNode(record)
        ? ['SourceNode']
        : ['DestinationNode']
      : SIDES;
    const seconds = num(record, 'flowEndSeconds') - num(record, 'flowStartSeconds');
    const rate = (octets: bigint): bigint => (seconds > 0 ? (octets * 8n) / BigInt(seconds) : 0n);
    const forward = rate(big(record, 'octetTotalCount'));
    const reverse = rate(big(record, 'reverseOctetTotalCount'));
    agg.throughput = forward;
    agg.reverseThroughput = reverse;
    for (const side of sides) {
      const names = PER_SIDE[side];
      for (const [c, f] of names.counters) agg[f] = big(record, c);
      agg[names.end] = num(record, 'flowEndSeconds');
      agg[names.throughput] = forward;
      agg[names.reverseThroughput] = reverse;
    }
    const ready = !corr;
    return {
      values,
      agg,
      ready,
      retries: 0,
      updated: true,
      activeAt: ready ? now : now + this.o.activeTimeoutMs,
      inactiveAt: now + this.o.inactiveTimeoutMs,
    };
  }
}

/** Both records are the same Node's half (a later update, not the other half). */
function sameNode(a: FlowValues, b: FlowValues): boolean {
  return (
    (isFromSourceNode(a) && isFromSourceNode(b)) || (isFromDestinationNode(a) && isFromDestinationNode(b))
  );
}

const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/**
 * Folds a later record of the same flow into `flow` for the Nodes in `sides`: per-Node totals
 * replaced, per-Node deltas summed; the flow's own totals are the larger of the Nodes', its deltas
 * and throughput those of the newest record. A record older than the last one from its Node
 * changes nothing but the end times.
 */
function aggregate(incoming: FlowValues, flow: AggregatedFlow, sides: readonly Side[]): void {
  const { values: into, agg } = flow;
  const end = num(incoming, 'flowEndSeconds');
  const latest = end >= num(into, 'flowEndSeconds');
  if (latest) into.flowEndSeconds = end;
  let previousEnd = 0;
  for (const side of sides) {
    const field = PER_SIDE[side].end;
    previousEnd = num(agg, field) || num(incoming, 'flowStartSeconds');
    agg[field] = end;
  }
  if (end <= previousEnd) return;
  const elapsed = BigInt(end - previousEnd);
  // The end of the connection, once reported, stays.
  if (num(into, 'flowEndReason') !== END_OF_FLOW) into.flowEndReason = num(incoming, 'flowEndReason');
  if (latest && typeof incoming.tcpState === 'string') into.tcpState = incoming.tcpState;
  let grown = 0n;
  let reverseGrown = 0n;
  for (const side of sides) {
    const names = PER_SIDE[side];
    grown = clampGrowth(big(incoming, 'octetTotalCount') - big(agg, names.octets));
    reverseGrown = clampGrowth(big(incoming, 'reverseOctetTotalCount') - big(agg, names.reverseOctets));
    for (const [c, f] of names.counters) {
      agg[f] = c.includes('Total') ? big(incoming, c) : big(agg, f) + big(incoming, c);
      if (latest) into[c] = c.includes('Total') ? maxBig(big(into, c), big(agg, f)) : big(agg, f);
    }
    agg[names.throughput] = (grown * 8n) / elapsed;
    agg[names.reverseThroughput] = (reverseGrown * 8n) / elapsed;
  }
  if (latest) {
    agg.throughput = (grown * 8n) / elapsed;
    agg.reverseThroughput = (reverseGrown * 8n) / elapsed;
  }
}

/** flowEndReason endOfFlowDetected (RFC 5102). */
const END_OF_FLOW = 3;
const clampGrowth = (d: bigint): bigint => (d > 0n ? d : 0n);

const DELTAS = ALL_COUNTERS.filter((c) => c.includes('Delta'));
const AGG_DELTAS = [
  ...DELTAS.flatMap((c) => SIDES.map((s) => `${c}From${s}`)),
  'throughput',
  'reverseThroughput',
  ...SIDES.flatMap((s) => [`throughputFrom${s}`, `reverseThroughputFrom${s}`]),
];

/** After an export: totals stay (the next throughput is computed from them), the rest restarts. */
function resetDeltas(flow: AggregatedFlow): void {
  for (const f of DELTAS) flow.values[f] = 0n;
  for (const f of AGG_DELTAS) flow.agg[f] = 0n;
}
