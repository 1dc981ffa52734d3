import type { FlowMod } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CookieAllocator } from '../openflow/cookie.js';
import { pipelineFlows } from '../openflow/features/pipeline-flows.js';
import { FlowCache } from '../openflow/flow-cache.js';
import type { FlowSwitch, GroupChange } from '../openflow/of-connection.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import { OvsFlowMetrics } from './ovs-flow-metrics.js';

/** A switch that accepts bundles, or refuses the next one when told. */
class Switch implements FlowSwitch {
  connected = true;
  refuseNext = false;
  async bundle(_mods: readonly (FlowMod | GroupChange)[]): Promise<void> {
    if (this.refuseNext) {
      this.refuseNext = false;
      throw new Error('refused');
    }
  }
  async dumpFlows() {
    return [];
  }
  onConnected() {
    return () => undefined;
  }
  async waitConnected() {}
}

const pipeline = new Pipeline(DEFAULT_FEATURES);
const ctx = { pipeline, cookies: new CookieAllocator(1) };

async function values(registry: Registry, name: string): Promise<Map<string, number>> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`${name} is not registered`);
  const out = new Map<string, number>();
  for (const v of (await metric.get()).values) {
    const labels = Object.entries(v.labels)
      .map(([k, l]) => `${k}=${l}`)
      .join(',');
    out.set(`${'metricName' in v && v.metricName ? `${v.metricName}|` : ''}${labels}`, v.value);
  }
  return out;
}

function setup() {
  const registry = new Registry();
  const sw = new Switch();
  const metrics: OvsFlowMetrics = new OvsFlowMetrics(registry, {
    pipeline,
    flowsPerTable: () => cache.countByTable(),
  });
  const cache: FlowCache = new FlowCache(sw, pino({ level: 'silent' }), metrics);
  return { registry, sw, cache };
}

describe('OvsFlowMetrics', () => {
  it('exports the three operations at 0 before any bundle', async () => {
    const { registry } = setup();
    const ops = await values(registry, 'antrea_agent_ovs_flow_ops_count');
    expect(ops).toEqual(
      new Map([
        ['operation=add', 0],
        ['operation=modify', 0],
        ['operation=delete', 0],
      ]),
    );
    const latency = await values(registry, 'antrea_agent_ovs_flow_ops_latency_milliseconds');
    expect(latency.get('antrea_agent_ovs_flow_ops_latency_milliseconds_count|operation=delete')).toBe(0);
  });

  it('counts bundles per kind of operation they carry, and refused bundles as errors', async () => {
    const { registry, sw, cache } = setup();
    const flows = pipelineFlows(ctx);
    await cache.replace('p', flows); // adds only
    await cache.replace('p', flows); // no change: no bundle
    const changed = { ...flows[5]!, actions: [] };
    // One bundle: a delete (flows[0] goes) and a modify (flows[5] drops now).
    await cache.replace('p', [...flows.slice(1, 5), changed, ...flows.slice(6)]);
    sw.refuseNext = true;
    await expect(
      cache.replace(
        'q',
        flows.slice(0, 1).map((f) => ({ ...f, priority: 7 })),
      ),
    ).rejects.toThrow();
    await cache.replay(); // adds

    const ops = await values(registry, 'antrea_agent_ovs_flow_ops_count');
    expect(Object.fromEntries(ops)).toEqual({
      'operation=add': 2,
      'operation=modify': 1,
      'operation=delete': 1,
    });
    const errors = await values(registry, 'antrea_agent_ovs_flow_ops_error_count');
    expect(Object.fromEntries(errors)).toEqual({
      'operation=add': 1,
      'operation=modify': 0,
      'operation=delete': 0,
    });
    // One latency sample per counted operation, refused ones included (Antrea times both).
    const latency = await values(registry, 'antrea_agent_ovs_flow_ops_latency_milliseconds');
    expect(latency.get('antrea_agent_ovs_flow_ops_latency_milliseconds_count|operation=add')).toBe(3);
    expect(latency.get('antrea_agent_ovs_flow_ops_latency_milliseconds_count|operation=modify')).toBe(1);
  });

  it("cannot change the cache's outcome: a throwing observer leaves bundles applied and errors as they were", async () => {
    const sw = new Switch();
    const sent: boolean[] = [];
    const cache = new FlowCache(sw, pino({ level: 'silent' }), {
      bundleSent: (_ops, _ms, ok) => {
        sent.push(ok);
        throw new Error('observer broke');
      },
    });
    const flows = pipelineFlows(ctx);
    await cache.replace('p', flows);
    expect(cache.size).toBe(flows.length);
    sw.refuseNext = true;
    await expect(cache.replace('q', [{ ...flows[0]!, priority: 7 }])).rejects.toThrow('refused');
    expect(cache.size).toBe(flows.length);
    expect(await cache.replay()).toBe(flows.length);
    expect(sent).toEqual([true, false, true]);
  });

  it('reports the flows of every pipeline table, empty tables at 0', async () => {
    const { registry, cache } = setup();
    const flows = pipelineFlows(ctx);
    await cache.replace('p', flows);
    const perTable = await values(registry, 'antrea_agent_ovs_flow_count');
    expect(perTable.size).toBe(pipeline.tables.length);
    let sum = 0;
    for (const v of perTable.values()) sum += v;
    expect(sum).toBe(flows.length);
    const classifier = pipeline.id('Classifier');
    const expected = flows.filter((f) => (f.table ?? 0) === classifier).length;
    expect(expected).toBeGreaterThan(0);
    expect(perTable.get(`table_id=${classifier},table_name=Classifier`)).toBe(expected);
    await cache.remove('p');
    const after = await values(registry, 'antrea_agent_ovs_flow_count');
    expect([...after.values()].every((v) => v === 0)).toBe(true);
  });
});
