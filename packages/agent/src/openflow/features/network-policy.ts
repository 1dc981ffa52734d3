import { CT_ZONE } from '@antrea-ts/apis';
import { type Action, buildMatch, type Flow, formatMatch, type MatchSpec } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  APDenyField,
  EgressRuleCTLabelField,
  IngressRuleCTLabelField,
  loadField,
  loadMark,
  matchMarks,
  type RegField,
} from '../fields.js';
import { type FlowContext, gotoNext, gotoTable, packetInAction, tableFlow } from '../flow-context.js';
import type { TableName } from '../pipeline.js';

const C = CookieCategory.NetworkPolicy;

/** reg3 carries the conjunction id of the rule that decided, for the metric tables (Antrea APConjIDField). */
export const APConjIDField: RegField = Object.freeze({ name: 'APConjID', field: 'reg3', start: 0, end: 31 });
/** userdata[0] bits of a rule's packet-in: answer it (Reject), log it (enableLogging). */
export const REJECT_PACKET_IN_OP = 1;
export const LOG_PACKET_IN_OP = 2;

function toController(op: number): Action[] {
  if (op === 0) return [];
  return [packetInAction(op)];
}
const APDenyRegMark = Object.freeze({ field: APDenyField, value: 1 });

/** Priorities (Antrea pkg/agent/openflow/network_policy.go and priority.go). */
export const POLICY_PRIORITY = Object.freeze({
  /** Established and related packets skip the rule tables. */
  established: 64990,
  /** K8s NetworkPolicy clause flows and their action flows. */
  k8sClause: 200,
  k8sAction: 190,
  /** Default isolation drops in the *DefaultRule tables; the baseline tier sits below. */
  isolation: 200,
  metric: 200,
  antreaTop: 64000,
  baselineTop: 180,
});

export type PolicyDirection = 'In' | 'Out';
export type PolicyAction = 'Allow' | 'Drop' | 'Reject' | 'Pass';

/**
 * One conjunction, ready to become flows. The peer clause is absent when the rule matches every
 * address (then only applied-to and service clauses remain); the service clause is `[{ip:true}]`
 * when the rule names no service, so there are always at least two clauses, as OVS requires.
 */
export interface ConjunctionSpec {
  readonly conjId: number;
  readonly direction: PolicyDirection;
  readonly table: TableName;
  readonly priority: number;
  readonly actionPriority: number;
  readonly action: PolicyAction;
  /** Where Pass continues (the K8s rule table, or the metric table in the baseline tier). */
  readonly passTo?: TableName;
  /** Addresses (nw_src / nw_dst) and, for egress `toServices`, Service group ids (reg7): any one matches. */
  readonly peer: readonly MatchSpec[] | undefined;
  readonly appliedTo: readonly MatchSpec[];
  readonly services: readonly MatchSpec[];
  /** enableLogging: every packet the action flow sees is also sent to the agent for the audit log. */
  readonly log?: boolean;
}

export interface IsolationSpec {
  /** Pods a K8s NetworkPolicy isolates: by output port for ingress, by source IP for egress. */
  readonly ingress: readonly number[];
  readonly egress: readonly string[];
}

const metricTable = (d: PolicyDirection): TableName => (d === 'In' ? 'IngressMetric' : 'EgressMetric');
const labelField = (d: PolicyDirection): RegField =>
  d === 'In' ? IngressRuleCTLabelField : EgressRuleCTLabelField;

/** Flows that make established and related packets skip the policy tables. */
export function policyBaseFlows(ctx: FlowContext): Flow[] {
  const flows: Flow[] = [];
  for (const [table, metric] of [
    ['AntreaPolicyEgressRule', 'EgressMetric'],
    ['AntreaPolicyIngressRule', 'IngressMetric'],
  ] as const) {
    for (const state of ['-new+est', '-new+rel']) {
      flows.push(
        tableFlow(ctx, C, table, POLICY_PRIORITY.established, { ip: true, ct_state: `${state}+trk` }, [
          gotoTable(ctx, metric),
        ]),
      );
    }
  }
  return flows;
}

/**
 * Conjunctive-match flows for every rule (Antrea policyRuleConjunction): one flow per distinct
 * match per clause, shared between rules that have the same match at the same priority in the same
 * table (each sharing rule adds its `conjunction(id,k/n)` action), one action flow per rule, and the
 * per-rule metric flows. Flows per rule grow as |peer| + |appliedTo| + |services| + 1 (+ metric).
 */
export function conjunctionFlows(ctx: FlowContext, specs: readonly ConjunctionSpec[]): Flow[] {
  const clauses = new Map<string, { flow: Flow; conj: Array<{ id: number; clause: number; n: number }> }>();
  const out: Flow[] = [];
  for (const s of specs) {
    const dims = [s.peer, s.appliedTo, s.services].filter((d): d is readonly MatchSpec[] => d !== undefined);
    const n = dims.length;
    dims.forEach((dim, k) => {
      for (const spec of dim) {
        const match = buildMatch(spec);
        const key = `${s.table}|${formatMatch(match, s.priority)}`;
        let entry = clauses.get(key);
        if (!entry) {
          entry = {
            flow: {
              table: ctx.pipeline.id(s.table),
              priority: s.priority,
              cookie: ctx.cookies.cookie(C),
              match,
              actions: [],
            },
            conj: [],
          };
          clauses.set(key, entry);
        }
        entry.conj.push({ id: s.conjId, clause: k + 1, n });
      }
    });
    out.push(...actionFlows(ctx, s));
  }
  for (const { flow: f, conj } of clauses.values()) {
    conj.sort((a, b) => a.id - b.id || a.clause - b.clause);
    out.push({
      ...f,
      actions: conj.map(
        (c) => ({ type: 'conjunction', id: c.id, clause: c.clause, nClauses: c.n }) as Action,
      ),
    });
  }
  return out;
}

function actionFlows(ctx: FlowContext, s: ConjunctionSpec): Flow[] {
  const id = BigInt(s.conjId);
  const metric = metricTable(s.direction);
  const cookie = ctx.cookies.cookie(C, id);
  const at = (table: TableName, priority: number, match: MatchSpec, actions: Action[]): Flow => ({
    table: ctx.pipeline.id(table),
    priority,
    cookie,
    match: buildMatch(match),
    actions,
  });
  const conjMatch: MatchSpec = { conj_id: s.conjId, ip: true };
  const log = s.log ? LOG_PACKET_IN_OP : 0;
  switch (s.action) {
    case 'Allow': {
      const label = labelField(s.direction);
      return [
        // The rule's id goes into the connection's ct_label, so established packets count for it.
        at(s.table, s.actionPriority, conjMatch, [
          loadField(APConjIDField, s.conjId),
          ...toController(log),
          {
            type: 'ct',
            commit: true,
            table: ctx.pipeline.id(metric),
            zone: CT_ZONE,
            exec: [loadField(label, s.conjId)],
          },
        ]),
        at(metric, POLICY_PRIORITY.metric, { ip: true, ct_state: '+new+trk', reg3: s.conjId }, [
          gotoNext(ctx, metric),
        ]),
        at(
          metric,
          POLICY_PRIORITY.metric,
          {
            ip: true,
            ct_state: '-new+trk',
            ct_label: {
              value: id << BigInt(label.start),
              mask: 0xffffffffn << BigInt(label.start),
            },
          },
          [gotoNext(ctx, metric)],
        ),
      ];
    }
    case 'Drop':
    case 'Reject':
      // Reject also hands the packet to the agent, which answers with a TCP RST or an ICMP
      // unreachable (PacketInHandler); the packet itself is dropped like Drop's, and counted.
      return [
        at(s.table, s.actionPriority, conjMatch, [
          loadField(APConjIDField, s.conjId),
          loadMark(APDenyRegMark),
          ...toController((s.action === 'Reject' ? REJECT_PACKET_IN_OP : 0) | log),
          gotoTable(ctx, metric),
        ]),
        at(metric, POLICY_PRIORITY.metric, { ip: true, reg3: s.conjId, ...matchMarks(APDenyRegMark) }, []),
      ];
    case 'Pass':
      return [
        at(s.table, s.actionPriority, conjMatch, [...toController(log), gotoTable(ctx, s.passTo ?? metric)]),
      ];
  }
}

/** K8s NetworkPolicy default isolation: what no allow rule admitted is dropped, per Pod. */
export function isolationFlows(ctx: FlowContext, iso: IsolationSpec): Flow[] {
  return [
    ...[...new Set(iso.ingress)]
      .sort((a, b) => a - b)
      .map((p) =>
        tableFlow(ctx, C, 'IngressDefaultRule', POLICY_PRIORITY.isolation, { ip: true, reg1: p }, []),
      ),
    ...[...new Set(iso.egress)]
      .sort()
      .map((ip) =>
        tableFlow(ctx, C, 'EgressDefaultRule', POLICY_PRIORITY.isolation, { ip: true, nw_src: ip }, []),
      ),
  ];
}

/** The conjunction id a flow's cookie carries (action and metric flows), or 0. */
export function conjIdOfCookie(cookie: bigint): number {
  return Number(cookie & 0xffffffffn);
}
