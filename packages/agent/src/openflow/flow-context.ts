import { type Action, buildMatch, type Flow, type MatchSpec } from '@antrea-ts/openflow';
import type { CookieAllocator, CookieCategory } from './cookie.js';
import type { Pipeline, TableName } from './pipeline.js';

/** What every flow builder needs: where tables are and how to tag flows. */
export interface FlowContext {
  readonly pipeline: Pipeline;
  readonly cookies: CookieAllocator;
}

/** One flow in a named table; the table id comes from the pipeline. */
export function tableFlow(
  ctx: FlowContext,
  category: CookieCategory,
  table: TableName,
  priority: number,
  match: MatchSpec,
  actions: Action[],
): Flow {
  return {
    table: ctx.pipeline.id(table),
    priority,
    cookie: ctx.cookies.cookie(category),
    match: buildMatch(match),
    actions,
  };
}

/** goto_table to a named table. */
export function gotoTable(ctx: FlowContext, table: TableName): Action {
  return { type: 'goto_table', table: ctx.pipeline.id(table) };
}

/** goto_table to the table after `table` in its pipeline ("continue"). */
export function gotoNext(ctx: FlowContext, table: TableName): Action {
  return { type: 'goto_table', table: ctx.pipeline.next(table) };
}

/**
 * Sends the whole packet to the agent (packet-in, reason "action") with userdata[0] = `op`, the
 * packet-in operation bits the agent dispatches on; `pause` makes it a continuation the agent
 * resumes (NXT_RESUME) once it has handled it.
 */
export function packetInAction(op: number, options: { pause?: boolean } = {}): Action {
  return {
    type: 'controller',
    maxLen: 0xffff,
    reason: 'action',
    userdata: Buffer.from([op]),
    ...(options.pause ? { pause: true } : {}),
  };
}
