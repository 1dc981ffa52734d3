import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OvsdbTxnError } from '../errors.js';
import { FrameParser } from './frame-parser.js';
import { classifyMessage, describeRpcError, type JsonRpcMessage } from './jsonrpc.js';
import { applyRowDiff, decodeTableUpdates2, normalizeRow } from './monitor.js';
import { decodeTransactResult } from './operations.js';
import { decodeSchema } from './schema.js';
import { ovsMap, ovsSet, type Row, uuid } from './value.js';

/**
 * Bytes captured from a real ovsdb-server 3.1.0 (vswitch schema 8.3.1): list_dbs, get_schema,
 * monitor_cond, three update2 notifications caused by ovs-vsctl (add-br, add-port with a geneve
 * interface, set protocols/external_ids), a failing wait, a select, echo, and a lock error.
 */
const STREAM = readFileSync(new URL('./fixtures/ovsdb-server-3.1.0.stream', import.meta.url));

function parse(chunkSize: number): JsonRpcMessage[] {
  const parser = new FrameParser();
  const out: JsonRpcMessage[] = [];
  for (let i = 0; i < STREAM.length; i += chunkSize) {
    const r = parser.push(STREAM.subarray(i, i + chunkSize));
    if (r.error) throw r.error;
    out.push(...r.messages.map(classifyMessage));
  }
  expect(parser.end()).toBeUndefined();
  return out;
}

describe('a real ovsdb-server byte stream', () => {
  const messages = parse(STREAM.length);

  it('splits into the same ten messages at any chunk size', () => {
    expect(
      messages.map((m) => (m.kind === 'notification' ? m.method : m.kind === 'response' ? m.id : '?')),
    ).toEqual([1, 2, 3, 'update2', 'update2', 'update2', 4, 5, 6, 7]);
    for (const size of [1, 3, 64, 1000, 4096]) expect(parse(size)).toEqual(messages);
  });

  it('decodes the schema and replays the update2 stream into rows', () => {
    const schema = decodeSchema((messages[1] as { result: unknown }).result);
    expect(schema).toMatchObject({ name: 'Open_vSwitch', version: '8.3.1' });
    const bridgeTable = schema.tables['Bridge']!;
    expect(bridgeTable.columns['protocols']?.kind).toBe('set');

    const rows = new Map<string, Row>();
    for (const m of messages.slice(3, 6)) {
      if (m.kind !== 'notification') throw new Error('expected a notification');
      expect(m.params[0]).toBe('mon');
      const updates = decodeTableUpdates2(m.params[1]);
      for (const [table, byUuid] of Object.entries(updates)) {
        for (const [id, u] of Object.entries(byUuid)) {
          const key = `${table}/${id}`;
          const tableSchema = schema.tables[table]!;
          if (u.kind === 'delete') rows.delete(key);
          else if (u.kind === 'modify') rows.set(key, applyRowDiff(rows.get(key)!, u.diff, tableSchema));
          else rows.set(key, normalizeRow(u.row, tableSchema));
        }
      }
    }
    const bridge = [...rows.entries()].find(([k]) => k.startsWith('Bridge/'))![1];
    expect(bridge['name']).toBe('br-cap');
    // add-br's bare-atom protocols, then the diff adding OpenFlow13.
    expect(bridge['protocols']).toEqual(ovsSet('OpenFlow15', 'OpenFlow13'));
    // k=v changed to k=w: the map diff carries the new value for an existing key.
    expect(bridge['external_ids']).toEqual(ovsMap({ k: 'w' }));
    expect(bridge['ports']).toEqual(
      ovsSet(uuid('6c18ecb4-6438-45f9-8eb7-0412bc67f78e'), uuid('b4e4f88c-589a-4393-aa68-4dee7f80d72f')),
    );
    const tun = [...rows.values()].find((r) => r['name'] === 'tun0')!;
    expect(tun).toEqual({
      name: 'tun0',
      type: 'geneve',
      options: ovsMap({ key: 'flow', remote_ip: 'flow' }),
    });
  });

  it('decodes the failing wait, the select, the echo and the error-only lock reply', () => {
    const [wait, select, echo, lock] = messages.slice(6) as { result: unknown; error: unknown }[];
    expect(() => decodeTransactResult([{ op: 'abort' }], wait!.result)).toThrow(OvsdbTxnError);
    const [r] = decodeTransactResult(
      [{ op: 'select', table: 'Interface', where: [], columns: ['name', 'options'] }],
      select!.result,
    );
    expect(r?.rows).toEqual([{ name: 'tun0', options: ovsMap({ key: 'flow', remote_ip: 'flow' }) }]);
    expect(echo!.result).toEqual(['x', 1]);
    // ovsdb-server leaves out "result" entirely on errors.
    expect(lock!.result).toBeNull();
    expect(describeRpcError(lock!.error)).toEqual({
      error: 'syntax error',
      details: 'lock request params must be <id>',
    });
  });
});
