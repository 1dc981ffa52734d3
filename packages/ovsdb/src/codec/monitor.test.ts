import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OvsdbProtocolError } from '../errors.js';
import {
  applyRowDiff,
  decodeTableUpdates,
  decodeTableUpdates2,
  encodeMonitorRequests,
  normalizeRow,
} from './monitor.js';
import { decodeSchema } from './schema.js';
import { type OvsdbMap, OvsdbSet, ovsMap, ovsSet, uuid } from './value.js';

const update2 = JSON.parse(
  readFileSync(new URL('./fixtures/update2.notification.json', import.meta.url), 'utf8'),
) as { params: [string, unknown] };

const schema = decodeSchema({
  name: 'Open_vSwitch',
  version: '8.3.1',
  tables: {
    Interface: {
      columns: {
        name: { type: 'string' },
        ofport: { type: { key: 'integer', min: 0, max: 1 } },
        external_ids: { type: { key: 'string', value: 'string', min: 0, max: 'unlimited' } },
        ports: { type: { key: { type: 'uuid', refTable: 'Port' }, min: 0, max: 'unlimited' } },
      },
    },
  },
});
const iface = schema.tables['Interface']!;

describe('monitor codec', () => {
  it('decodes the schema column shapes that decide diff semantics', () => {
    expect(iface.columns['name']?.kind).toBe('scalar');
    expect(iface.columns['ofport']?.kind).toBe('set');
    expect(iface.columns['external_ids']?.kind).toBe('map');
    expect(iface.columns['ports']?.refTable).toBe('Port');
  });

  it('encodes monitor_cond requests', () => {
    expect(
      encodeMonitorRequests({
        Interface: { columns: ['name', 'ofport'], where: [['name', '==', 'gw0']], select: { initial: true } },
      }),
    ).toEqual({
      Interface: { columns: ['name', 'ofport'], select: { initial: true }, where: [['name', '==', 'gw0']] },
    });
  });

  it('decodes update2 with modify, insert and delete', () => {
    const u = decodeTableUpdates2(update2.params[1]);
    const rows = u['Interface']!;
    expect(rows['0c9d8e7f-1111-4222-8333-444455556666']).toEqual({
      kind: 'insert',
      row: { name: 'gw0', type: 'internal', ofport: 3 },
    });
    expect(rows['1c9d8e7f-1111-4222-8333-444455556666']).toEqual({ kind: 'delete' });
    expect(rows['6f0b1c7e-4e1a-4a51-8e0c-0a1b2c3d4e5f']?.kind).toBe('modify');
  });

  it('applies update2 diffs: scalar replace, set symmetric difference, map add/change/remove', () => {
    const u = decodeTableUpdates2(update2.params[1]);
    const diff = u['Interface']!['6f0b1c7e-4e1a-4a51-8e0c-0a1b2c3d4e5f'];
    if (diff?.kind !== 'modify') throw new Error('expected modify');
    const old = { name: 'p1', ofport: 1, external_ids: ovsMap({ pod: 'a', ns: 'default' }) };
    const next = applyRowDiff(old, diff.diff, iface);
    // ofport: {1} xor {1,2} = {2}
    expect(next['ofport']).toEqual(new OvsdbSet([2]));
    // pod=a equals the old value -> removed; ip is new -> added; ns untouched.
    expect((next['external_ids'] as OvsdbMap).entries).toEqual([
      ['ns', 'default'],
      ['ip', '10.0.0.2'],
    ]);
    expect(applyRowDiff(old, { name: 'p2' }, iface)['name']).toBe('p2');
    expect(applyRowDiff(old, { external_ids: ovsMap({ ns: 'kube' }) }, iface)['external_ids']).toEqual(
      ovsMap({ pod: 'a', ns: 'kube' }),
    );
    expect(
      applyRowDiff({}, { ports: ovsSet(uuid('5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11')) }, iface)['ports'],
    ).toEqual(ovsSet(uuid('5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11')));
    expect(() => applyRowDiff(old, { external_ids: 'x' }, iface)).toThrow(OvsdbProtocolError);
  });

  it('decodes update (v1) with old and new', () => {
    const u = decodeTableUpdates({
      Bridge: { '5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11': { old: { name: 'a' }, new: { name: 'b' } } },
    });
    expect(u['Bridge']!['5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11']).toEqual({
      old: { name: 'a' },
      new: { name: 'b' },
    });
    expect(() => decodeTableUpdates([])).toThrow(OvsdbProtocolError);
    expect(() => decodeTableUpdates2({ T: { x: { bogus: 1 } } })).toThrow(OvsdbProtocolError);
  });

  it('normalises bare atoms in set columns so inserts and diffs compare equal', () => {
    const row = normalizeRow({ name: 'p1', ofport: 3, external_ids: ovsMap({}) }, iface);
    expect(row).toEqual({ name: 'p1', ofport: ovsSet(3), external_ids: ovsMap({}) });
    expect(normalizeRow(row, iface)).toEqual(row);
  });
});
