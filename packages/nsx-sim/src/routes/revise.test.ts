import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SP, startTestSim, type TestSim } from '../test-support.js';

describe('action=revise', () => {
  let sim: TestSim;
  beforeEach(async () => {
    sim = await startTestSim();
    for (const [id, seq] of [
      ['a', 10],
      ['b', 20],
      ['c', 21],
    ] as const) {
      await sim.call('PATCH', `${SP}/${id}`, { category: 'Application', sequence_number: seq });
    }
    await sim.call('PATCH', `${SP}/infra`, { category: 'Infrastructure', sequence_number: 1 });
  });
  afterEach(async () => {
    await sim.app.close();
  });
  const order = async () =>
    (await sim.call('GET', `${SP}?sort_by=sequence_number`)).body.results
      .filter((p: { category: string }) => p.category === 'Application')
      .map((p: { id: string }) => p.id);

  it('moves a policy within its category and keeps others untouched when there is room', async () => {
    const res = await sim.call('POST', `${SP}/c?action=revise&operation=insert_top`, {});
    expect(res.status).toBe(200);
    expect(res.body.sequence_number).toBe(5);
    expect(await order()).toEqual(['c', 'a', 'b']);
    expect((await sim.call('GET', `${SP}/a`)).body._revision).toBe(0);
    const after = await sim.call(
      'POST',
      `${SP}/c?action=revise&operation=insert_after&anchor_path=/infra/domains/default/security-policies/a`,
      {},
    );
    expect(after.body.sequence_number).toBe(15);
    expect(await order()).toEqual(['a', 'c', 'b']);
  });

  it('renumbers the category when there is no free sequence number, and creates new policies', async () => {
    const res = await sim.call(
      'POST',
      `${SP}/new?action=revise&operation=insert_before&anchor_path=/infra/domains/default/security-policies/c`,
      { category: 'Application' },
    );
    expect(res.status).toBe(200);
    expect(await order()).toEqual(['a', 'b', 'new', 'c']);
    const seqs = (await sim.call('GET', `${SP}?sort_by=sequence_number`)).body.results.map(
      (p: { id: string; sequence_number: number }) => `${p.id}:${p.sequence_number}`,
    );
    expect(seqs).toEqual(['infra:1', 'a:10', 'b:20', 'new:30', 'c:40']);
    expect((await sim.call('GET', `${SP}/c`)).body._revision).toBe(1);
    const badAnchor = await sim.call(
      'POST',
      `${SP}/a?action=revise&operation=insert_after&anchor_path=/infra/domains/default/security-policies/infra`,
      {},
    );
    expect(badAnchor.status).toBe(400);
    expect((await sim.call('POST', `${SP}/a?action=explode`, {})).status).toBe(400);
  });

  it('orders rules inside a policy', async () => {
    await sim.call('PATCH', `${SP}/a`, {
      rules: [
        { id: 'r1', sequence_number: 1 },
        { id: 'r2', sequence_number: 2 },
      ],
    });
    await sim.call('POST', `${SP}/a/rules/r2?action=revise&operation=insert_top`, {});
    expect((await sim.call('GET', `${SP}/a`)).body.rules.map((r: { id: string }) => r.id)).toEqual([
      'r2',
      'r1',
    ]);
  });
});
