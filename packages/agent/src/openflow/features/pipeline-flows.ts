import { CT_ZONE } from '@antrea-ts/apis';
import { type Action, type Flow, OFPP, subfield } from '@antrea-ts/openflow';
import { CookieCategory } from '../cookie.js';
import {
  ConnSourceCTMarkField,
  FromGatewayRegMark,
  matchMarks,
  OutputToOFPortRegMark,
  PktSourceField,
  TargetOFPortField,
} from '../fields.js';
import { type FlowContext, gotoNext, gotoTable, tableFlow } from '../flow-context.js';

const C = CookieCategory.PodConnectivity;

/**
 * The flows every table has regardless of Pods and Nodes: one miss flow per table (continue or
 * drop, as the pipeline declares), dispatch in the root table, conntrack, TTL, commit and output.
 */
export function pipelineFlows(ctx: FlowContext): Flow[] {
  const flows: Flow[] = [];
  for (const table of ctx.pipeline.tables) {
    const actions: Action[] =
      table.missTarget === undefined ? [] : [{ type: 'goto_table', table: table.missTarget }];
    flows.push({ table: table.id, priority: 0, cookie: ctx.cookies.cookie(C), match: [], actions });
  }
  flows.push(
    tableFlow(ctx, C, 'PipelineRootClassifier', 200, { arp: true }, [gotoTable(ctx, 'ARPSpoofGuard')]),
    tableFlow(ctx, C, 'PipelineRootClassifier', 200, { ip: true }, [gotoTable(ctx, 'Classifier')]),
    // ARP between local ports (Pod <-> Pod, Pod <-> gateway) is plain L2: let OVS switch it.
    tableFlow(ctx, C, 'ARPResponder', 190, { arp: true }, [{ type: 'output', port: OFPP.NORMAL }]),
    tableFlow(ctx, C, 'ConntrackZone', 200, { ip: true }, [
      {
        type: 'ct',
        table: ctx.pipeline.id('ConntrackState'),
        zone: CT_ZONE,
        nat: {},
      },
    ]),
    tableFlow(ctx, C, 'ConntrackState', 190, { ip: true, ct_state: '+inv+trk' }, []),
    // The gateway's packets were routed (and their TTL decremented) by the Node's kernel already.
    tableFlow(ctx, C, 'L3DecTTL', 210, { ip: true, ...matchMarks(FromGatewayRegMark) }, [
      gotoNext(ctx, 'L3DecTTL'),
    ]),
    tableFlow(ctx, C, 'L3DecTTL', 200, { ip: true }, [{ type: 'dec_ttl' }, gotoNext(ctx, 'L3DecTTL')]),
    // Remember where a connection came from in ct_mark, so replies can be classified later.
    tableFlow(ctx, C, 'ConntrackCommit', 200, { ip: true, ct_state: '+new+trk' }, [
      {
        type: 'ct',
        commit: true,
        table: ctx.pipeline.id('Output'),
        zone: CT_ZONE,
        exec: [
          {
            type: 'move',
            src: subfield(PktSourceField.field, PktSourceField.start, PktSourceField.end),
            dst: subfield(
              ConnSourceCTMarkField.field,
              ConnSourceCTMarkField.start,
              ConnSourceCTMarkField.end,
            ),
          },
        ],
      },
    ]),
    tableFlow(ctx, C, 'Output', 200, matchMarks(OutputToOFPortRegMark), [
      {
        type: 'output_reg',
        src: subfield(TargetOFPortField.field, TargetOFPortField.start, TargetOFPortField.end),
      },
    ]),
  );
  return flows;
}
