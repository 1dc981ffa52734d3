import { describe, expect, it } from 'vitest';
import { G, P, startTestSim } from '../test-support.js';
import { paginate } from './list.js';

describe('paginate', () => {
  const items = ['c', 'a', 'e', 'b', 'd'].map((id, i) => ({ id, n: 5 - i }));

  it('pages with an opaque cursor that disappears on the last page', () => {
    const p1 = paginate(items, { page_size: 2 });
    expect((p1['results'] as { id: string }[]).map((r) => r.id)).toEqual(['a', 'b']);
    expect(p1['result_count']).toBe(5);
    expect(typeof p1['cursor']).toBe('string');
    const p2 = paginate(items, { page_size: 2, cursor: p1['cursor'] as string });
    expect((p2['results'] as { id: string }[]).map((r) => r.id)).toEqual(['c', 'd']);
    const p3 = paginate(items, { page_size: 2, cursor: p2['cursor'] as string });
    expect((p3['results'] as { id: string }[]).map((r) => r.id)).toEqual(['e']);
    expect(p3['cursor']).toBeUndefined();
  });

  it('sorts by a field in either direction and projects included_fields', () => {
    const desc = paginate(items, { sort_by: 'n', sort_ascending: false });
    expect((desc['results'] as { n: number }[]).map((r) => r.n)).toEqual([5, 4, 3, 2, 1]);
    expect(desc['sort_by']).toBe('n');
    const proj = paginate(items, { included_fields: 'id' });
    expect(proj['results']).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }, { id: 'e' }]);
  });

  it('rejects a cursor it did not make', () => {
    expect(() => paginate(items, { cursor: 'garbage!' })).toThrowError(/Invalid cursor/);
  });
});

describe('list endpoints', () => {
  it('walks all groups page by page like the terraform provider loop', async () => {
    const sim = await startTestSim();
    for (let i = 0; i < 7; i++) {
      await sim.call('PATCH', `${G}/g${i}`, {
        expression: [{ resource_type: 'IPAddressExpression', ip_addresses: [`10.0.${i}.0/24`] }],
      });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let total = -1;
    do {
      const res = await sim.call('GET', `${G}?page_size=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      if (total < 0) total = res.body.result_count;
      seen.push(...res.body.results.map((r: { id: string }) => r.id));
      cursor = res.body.cursor;
    } while (cursor);
    expect(total).toBe(7);
    expect(seen).toEqual(['g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
    const bad = await sim.call('GET', `${G}?page_size=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.httpStatus).toBe('BAD_REQUEST');
    const badCursor = await sim.call('GET', `${G}?cursor=zzz`);
    expect(badCursor.status).toBe(400);
    expect((await sim.call('GET', `${P}/infra/domains/none/groups`)).status).toBe(404);
    await sim.app.close();
  });
});
