import { describe, expect, it } from 'vitest';
import { buildMatch } from '../codec/match.js';
import { OfBundleError } from '../errors.js';
import { FakeOpenFlowBridge } from './fake-bridge.js';
import { SAMPLE_FLOWS } from './sample-flows.js';

describe('FakeOpenFlowBridge', () => {
  it('keeps a flow table with add/modify/delete semantics and prints it like ovs-ofctl', async () => {
    const b = new FakeOpenFlowBridge();
    await b.addFlows(SAMPLE_FLOWS.map((s) => s.flow));
    expect(b.dumpText()).toEqual(SAMPLE_FLOWS.map((s) => s.text).sort());
    const f = { table: 30, priority: 5, match: buildMatch({ ip: true }), actions: [] };
    await b.addFlows([f]);
    await b.modifyFlows([{ ...f, actions: [{ type: 'output', port: 2 }] }]);
    expect(b.dumpText(30)).toEqual(['table=30, priority=5,ip actions=output:2']);
    await b.deleteFlows([f]);
    expect(b.dumpText(30)).toEqual([]);
    await b.deleteFlowsByCookie(0x2000000000000n, 0xffff000000000000n);
    expect(b.dumpText(10)).toEqual([SAMPLE_FLOWS[0]!.text]);
  });

  it('applies bundles atomically and names rejected messages', async () => {
    const b = new FakeOpenFlowBridge();
    b.reject = (_e, i) => (i === 1 ? 'OFPBAC_BAD_OUT_GROUP' : undefined);
    const err = await b.addFlows(SAMPLE_FLOWS.slice(0, 3).map((s) => s.flow)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OfBundleError);
    expect((err as OfBundleError).errors[0]).toMatchObject({
      messageIndex: 1,
      errName: 'OFPBAC_BAD_OUT_GROUP',
    });
    expect(b.dumpText()).toEqual([]);
  });

  it('simulates a switch restart for replay logic', async () => {
    const b = new FakeOpenFlowBridge();
    await b.addFlows([SAMPLE_FLOWS[0]!.flow]);
    let replayed = false;
    b.on('reconnected', () => {
      replayed = b.dumpText().length === 0;
    });
    b.simulateRestart();
    expect(replayed).toBe(true);
  });
});
