import { type Flow, subfield } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  FromTCReturnRegMark,
  loadField,
  loadMark,
  matchMarks,
  OutputToOFPortRegMark,
  type RegField,
  TargetOFPortField,
  TrafficControlMirrorRegMark,
  TrafficControlRedirectRegMark,
  TrafficControlTargetOFPortField,
} from '../fields.js';
import { type FlowContext, gotoNext, gotoTable, tableFlow } from '../flow-context.js';

// TrafficControl in OVS (Antrea's TrafficControl table, pkg/agent/openflow/pod_connectivity.go):
// after L2ForwardingCalc has chosen the output port, a selected Pod's packets are marked with the
// action (mirror or redirect) and the TrafficControl port in reg9; Output then sends them to the
// original port and the TrafficControl port (mirror), or only to the TrafficControl port
// (redirect). Redirected packets come back through a return port: Classifier marks them and sends
// them straight to routing, and once L2ForwardingCalc has found their port they skip the ingress
// policy tables and conntrack (both done on their first pass) and go to Output.
// Flows keep the PodConnectivity cookie category, as Antrea's do.

const C = CookieCategory.PodConnectivity;

/** Antrea's priorities: the mark flows at normal (200), the return and output flows above the rest. */
const MARK_PRIORITY = 200;
const RETURN_PRIORITY = 210;
const OUTPUT_PRIORITY = 211;

export type TrafficControlFlowAction = 'Mirror' | 'Redirect';
export type TrafficControlFlowDirection = 'Ingress' | 'Egress' | 'Both';

const outputReg = (rf: RegField) => ({
  type: 'output_reg' as const,
  src: subfield(rf.field, rf.start, rf.end),
});

/** The flows every TrafficControl shares; installed once when the gate is on. */
export function trafficControlStaticFlows(ctx: FlowContext): Flow[] {
  return [
    tableFlow(
      ctx,
      C,
      'Output',
      OUTPUT_PRIORITY,
      matchMarks(OutputToOFPortRegMark, TrafficControlMirrorRegMark),
      [outputReg(TargetOFPortField), outputReg(TrafficControlTargetOFPortField)],
    ),
    tableFlow(
      ctx,
      C,
      'Output',
      OUTPUT_PRIORITY,
      matchMarks(OutputToOFPortRegMark, TrafficControlRedirectRegMark),
      [outputReg(TrafficControlTargetOFPortField)],
    ),
    tableFlow(
      ctx,
      C,
      'TrafficControl',
      RETURN_PRIORITY,
      matchMarks(OutputToOFPortRegMark, FromTCReturnRegMark),
      [gotoTable(ctx, 'Output')],
    ),
  ];
}

/** Packets that enter through a return port were classified on their first pass: route them again. */
export function trafficControlReturnFlows(ctx: FlowContext, returnOfport: number): Flow[] {
  return [
    tableFlow(ctx, C, 'Classifier', 200, { in_port: returnOfport }, [
      loadMark(FromTCReturnRegMark),
      gotoTable(ctx, 'L3Forwarding'),
    ]),
  ];
}

export interface TrafficControlMarkSpec {
  /** ofports of the selected Pods on this Node. */
  readonly podOfports: readonly number[];
  readonly targetOfport: number;
  readonly direction: TrafficControlFlowDirection;
  readonly action: TrafficControlFlowAction;
}

/**
 * One TrafficControl's marks: packets to a selected Pod (Ingress: its port is the output port) and
 * from it (Egress: it is the input port) get the action and the target port.
 */
export function trafficControlMarkFlows(ctx: FlowContext, spec: TrafficControlMarkSpec): Flow[] {
  const actions = [
    loadField(TrafficControlTargetOFPortField, spec.targetOfport),
    loadMark(spec.action === 'Mirror' ? TrafficControlMirrorRegMark : TrafficControlRedirectRegMark),
    gotoNext(ctx, 'TrafficControl'),
  ];
  const flows: Flow[] = [];
  for (const port of [...spec.podOfports].sort((a, b) => a - b)) {
    if (spec.direction !== 'Egress') {
      flows.push(
        tableFlow(ctx, C, 'TrafficControl', MARK_PRIORITY, { [TargetOFPortField.field]: port }, actions),
      );
    }
    if (spec.direction !== 'Ingress') {
      flows.push(tableFlow(ctx, C, 'TrafficControl', MARK_PRIORITY, { in_port: port }, actions));
    }
  }
  return flows;
}
