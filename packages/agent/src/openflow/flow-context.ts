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
