import { type Action, buildMatch, type Flow, type MatchSpec, OFPP, subfield } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  APDenyField,
  HairpinCTMark,
  loadField,
  loadMark,
  matchMarks,
  OutputToOFPortRegMark,
  type RegField,
  SvcNoEpRegMark,
  TargetOFPortField,
  TraceflowEgressConjField,
  TraceflowIngressConjField,
} from '../fields.js';
import { type FlowContext, gotoNext, packetInAction, tableFlow } from '../flow-context.js';
import type { TableName } from '../pipeline.js';
import { APConjIDField, REJECT_PACKET_IN_OP } from './network-policy.js';

const C = CookieCategory.Traceflow;

/**
 * userdata[0] bit of a Traceflow packet-in (beside the policy bits REJECT_PACKET_IN_OP = 1 and
 * LOG_PACKET_IN_OP = 2 of network-policy.ts): the packet-in handler hands it to the Traceflow agent.
 */
export const TRACEFLOW_PACKET_IN_OP = 4;

/**
 * Priorities of the tagged flows: each sits just above the flows it shadows for tagged packets
 * (policy metric and isolation flows at 200, Output at 200), so untagged traffic never sees them.
 */
export const TRACEFLOW_PRIORITY = Object.freeze({
  spoofGuardDrop: 1,
  liveSender: 100,
  metricPass: 201,
  drop: 202,
  ruleAllowed: 203,
  output: 202,
  tunnelOutput: 203,
  hairpinOutput: 211,
  liveReceiver: 210,
  /** Above AntreaProxy's no-endpoint reject in EndpointDNAT (210). */
  serviceNoEndpoint: 211,
});

/** Which live packets get the tag (Antrea's flowsToTrace with a packet spec). */
export interface LiveTrafficMatch {
  /** Source Pod on this Node: tag new connections from its port in ConntrackState. */
  readonly sender?: { readonly ofport: number };
  /** Destination Pod on this Node without a source Pod: tag in L2ForwardingCalc by its MAC. */
  readonly receiver?: { readonly ofport: number; readonly mac: string };
  readonly srcIp?: string;
  readonly dstIp?: string;
  /** IP protocol number (1, 6, 17); undefined matches any IP packet. */
  readonly protocol?: number;
  readonly srcPort?: number;
  readonly dstPort?: number;
}

export interface TraceflowFlowSpec {
  /** The DSCP value the controller allocated. */
  readonly tag: number;
  readonly tunnelOfport: number | undefined;
  readonly liveTraffic: boolean;
  readonly droppedOnly: boolean;
  /** K8s isolation drops of this Node (flows of the *DefaultRule tables with no action). */
  readonly isolationDrops: readonly Flow[];
  /** The metric flows of this Node's Allow rules for new connections (see allowedRuleMetrics). */
  readonly allowedRules?: readonly Flow[];
  readonly live?: LiveTrafficMatch;
}

const toController = (op = TRACEFLOW_PACKET_IN_OP): Action => packetInAction(op);

const outputReg: Action = {
  type: 'output_reg',
  src: subfield(TargetOFPortField.field, TargetOFPortField.start, TargetOFPortField.end),
};
const clearDscp: Action = { type: 'set_field', field: 'ip_dscp', value: 0n };

/**
 * Flows that follow packets carrying one Traceflow's tag in their DSCP bits (Antrea's
 * flowsToTrace): every place where the packet's fate is decided sends it to the agent, which turns
 * the registers at that point into observations.
 * - SpoofGuard: a tagged packet that fails the check is reported instead of silently dropped.
 * - Egress/IngressMetric: a rule's drop (APDeny) is reported with the rule's conjunction id in
 *   reg3; a packet an Allow rule let through (a copy of that rule's metric flow, which matches its
 *   id in reg3) moves reg3 into the Traceflow registers (reg5 egress, reg6 ingress) so the final
 *   packet-in names the rules that let it through; other packets just go on. Tagged packets skip
 *   the per-rule counters, as Antrea's reporting flows do.
 * - *DefaultRule: K8s isolation drops, copied with the tag and a packet-in.
 * - EndpointDNAT: a Service without endpoints (AntreaProxy's SvcNoEp mark) is reported; a live
 *   packet is still rejected (the client sees the refusal), an injected one only reported, as for
 *   a Reject rule. Antrea has no such flow: its proxier rejects the packet and the Traceflow
 *   times out.
 * - Output: to the tunnel the packet is sent on (the next Node traces it further) and reported;
 *   elsewhere an injected packet is only reported (it is not real traffic), a live one is delivered
 *   with its DSCP cleared and reported.
 * droppedOnly reports drops only.
 */
export function traceflowFlows(ctx: FlowContext, spec: TraceflowFlowSpec): Flow[] {
  const tagged: MatchSpec = { ip: true, ip_dscp: spec.tag };
  const report = spec.droppedOnly ? [] : [toController()];
  const flows: Flow[] = [
    tableFlow(ctx, C, 'SpoofGuard', TRACEFLOW_PRIORITY.spoofGuardDrop, tagged, [toController()]),
  ];
  for (const metric of ['EgressMetric', 'IngressMetric'] as const) {
    flows.push(
      tableFlow(ctx, C, metric, TRACEFLOW_PRIORITY.drop, { ...tagged, ...denied(1) }, [toController()]),
      tableFlow(ctx, C, metric, TRACEFLOW_PRIORITY.metricPass, { ...tagged, ...denied(0) }, [
        gotoNext(ctx, metric),
      ]),
    );
  }
  // Only a rule that allowed the packet names itself: reg3 also carries a Service's endpoint IP.
  const egressMetric = ctx.pipeline.id('EgressMetric');
  for (const allowed of spec.allowedRules ?? []) {
    const egress = allowed.table === egressMetric;
    flows.push({
      ...allowed,
      priority: TRACEFLOW_PRIORITY.ruleAllowed,
      cookie: ctx.cookies.cookie(C),
      match: buildMatch({ ...matchOf(allowed), ...tagged }),
      actions: [
        ...rememberRule(egress ? TraceflowEgressConjField : TraceflowIngressConjField, egress),
        gotoNext(ctx, egress ? 'EgressMetric' : 'IngressMetric'),
      ],
    });
  }
  for (const drop of spec.isolationDrops) {
    flows.push({
      ...drop,
      priority: TRACEFLOW_PRIORITY.drop,
      cookie: ctx.cookies.cookie(C),
      match: buildMatch({ ...matchOf(drop), ...tagged }),
      actions: [toController()],
    });
  }
  const live = spec.liveTraffic;
  if (ctx.pipeline.has('EndpointDNAT')) {
    flows.push(
      tableFlow(
        ctx,
        C,
        'EndpointDNAT',
        TRACEFLOW_PRIORITY.serviceNoEndpoint,
        { ...tagged, ...matchMarks(SvcNoEpRegMark) },
        // Two packet-ins for live traffic: the report, and the reject the handler answers.
        live ? [toController(), toController(REJECT_PACKET_IN_OP)] : [toController()],
      ),
    );
  }
  if (spec.tunnelOfport !== undefined) {
    flows.push(
      tableFlow(
        ctx,
        C,
        'Output',
        TRACEFLOW_PRIORITY.tunnelOutput,
        { ...tagged, ...matchMarks(OutputToOFPortRegMark), reg1: spec.tunnelOfport },
        [outputReg, ...report],
      ),
    );
  }
  flows.push(
    tableFlow(
      ctx,
      C,
      'Output',
      TRACEFLOW_PRIORITY.output,
      { ...tagged, ...matchMarks(OutputToOFPortRegMark) },
      // The packet-in comes first: it must still carry the tag the agent looks the Traceflow up by.
      live ? [...report, clearDscp, outputReg] : report,
    ),
  );
  if (ctx.pipeline.has('SNAT')) {
    // Hairpin (a Pod reached itself through a Service) leaves by in_port from a flow above the
    // usual Output flows (service.ts): the tagged copy sits above that one.
    const inPort: Action = { type: 'output', port: OFPP.IN_PORT };
    flows.push(
      tableFlow(
        ctx,
        C,
        'Output',
        TRACEFLOW_PRIORITY.hairpinOutput,
        { ...tagged, ...matchMarks(OutputToOFPortRegMark, HairpinCTMark) },
        live ? [...report, clearDscp, inPort] : report,
      ),
    );
  }
  if (live && spec.live) flows.push(...liveTagFlows(ctx, spec.tag, spec.live));
  return flows;
}

function denied(value: number): MatchSpec {
  return matchMarks({ field: APDenyField, value });
}

/** The ids of those of `tables` the pipeline has. */
function tableIds(ctx: FlowContext, tables: readonly TableName[]): Set<number> {
  return new Set(tables.filter((t) => ctx.pipeline.has(t)).map((t) => ctx.pipeline.id(t)));
}

/** The K8s isolation drops among `flows` (*DefaultRule flows with no action): copied for tagged packets. */
export function isolationDropFlows(ctx: FlowContext, flows: readonly Flow[]): Flow[] {
  const tables = tableIds(ctx, ['EgressDefaultRule', 'IngressDefaultRule']);
  return flows.filter((f) => tables.has(f.table ?? 0) && (f.priority ?? 0) > 0 && f.actions.length === 0);
}

/**
 * The Allow rules' metric flows for new connections among `flows` (they match the rule's id in
 * reg3): copied for tagged packets, so only a rule that allowed the packet is reported.
 */
export function allowedRuleMetrics(ctx: FlowContext, flows: readonly Flow[]): Flow[] {
  const tables = tableIds(ctx, ['EgressMetric', 'IngressMetric']);
  const matches = (f: Flow, field: string) => f.match.some((m) => m.field === field);
  return flows.filter(
    (f) =>
      tables.has(f.table ?? 0) &&
      f.actions.length > 0 &&
      matches(f, APConjIDField.field) &&
      matches(f, 'ct_state'),
  );
}

/** reg3 (the deciding rule) into the Traceflow register; egress clears it for the ingress side. */
function rememberRule(reg: RegField, clear: boolean): Action[] {
  const move: Action = {
    type: 'move',
    src: subfield(APConjIDField.field, APConjIDField.start, APConjIDField.end),
    dst: subfield(reg.field, reg.start, reg.end),
  };
  return clear ? [move, loadField(APConjIDField, 0)] : [move];
}

/** The MatchSpec equivalent of a built match (exact or masked values). */
function matchOf(flow: Flow): MatchSpec {
  const spec: MatchSpec = {};
  for (const m of flow.match)
    spec[m.field] = m.mask === undefined ? m.value : { value: m.value, mask: m.mask };
  return spec;
}

/** The first packets of real connections get the tag: at the source Pod, or at the destination. */
function liveTagFlows(ctx: FlowContext, tag: number, live: LiveTrafficMatch): Flow[] {
  const match: MatchSpec = { ip: true, ct_state: '+new+trk' };
  if (live.protocol !== undefined) match['ip_proto'] = live.protocol;
  if (live.srcIp) match['nw_src'] = live.srcIp;
  if (live.dstIp) match['nw_dst'] = live.dstIp;
  const l4 = live.protocol === 6 ? 'tcp' : live.protocol === 17 ? 'udp' : undefined;
  if (l4 && live.srcPort) match[`${l4}_src`] = live.srcPort;
  if (l4 && live.dstPort) match[`${l4}_dst`] = live.dstPort;
  const setTag: Action = { type: 'set_field', field: 'ip_dscp', value: BigInt(tag) };
  const flows: Flow[] = [];
  if (live.sender) {
    flows.push(
      tableFlow(
        ctx,
        C,
        'ConntrackState',
        TRACEFLOW_PRIORITY.liveSender,
        { ...match, in_port: live.sender.ofport },
        [setTag, gotoNext(ctx, 'ConntrackState')],
      ),
    );
  } else if (live.receiver) {
    const table: TableName = 'L2ForwardingCalc';
    flows.push(
      tableFlow(ctx, C, table, TRACEFLOW_PRIORITY.liveReceiver, { ...match, eth_dst: live.receiver.mac }, [
        loadField(TargetOFPortField, live.receiver.ofport),
        loadMark(OutputToOFPortRegMark),
        setTag,
        gotoNext(ctx, table),
      ]),
    );
  }
  return flows;
}
