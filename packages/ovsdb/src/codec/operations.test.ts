import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OvsdbProtocolError, OvsdbTxnError } from '../errors.js';
import { classifyMessage, encodeRequest } from './jsonrpc.js';
import { decodeTransactResult, encodeOperation, type Operation } from './operations.js';
import { namedUuid, ovsMap, ovsSet, Uuid } from './value.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8').trim();

const BRIDGE_OPS: Operation[] = [
  {
    op: 'insert',
    table: 'Bridge',
    uuidName: 'newbr',
    row: {
      name: 'br-int',
      datapath_type: 'netdev',
      protocols: ovsSet('OpenFlow15'),
      fail_mode: 'secure',
      other_config: ovsMap({ 'disable-in-band': 'true' }),
    },
  },
  {
    op: 'mutate',
    table: 'Open_vSwitch',
    where: [],
    mutations: [['bridges', 'insert', ovsSet(namedUuid('newbr'))]],
  },
  {
    op: 'wait',
    table: 'Interface',
    where: [['name', '==', 'gw0']],
    columns: ['ofport'],
    until: '!=',
    rows: [{ ofport: ovsSet() }],
    timeout: 5000,
  },
  { op: 'comment', comment: 'antrea-ts' },
];

describe('transact codec', () => {
  it('encodes a transact request byte-for-byte like the golden fixture', () => {
    const bytes = encodeRequest('transact', ['Open_vSwitch', ...BRIDGE_OPS.map(encodeOperation)], 7);
    expect(new TextDecoder().decode(bytes)).toBe(fixture('transact-insert-bridge.request.json'));
  });

  it('encodes the remaining operations', () => {
    expect(encodeOperation({ op: 'select', table: 'Port', where: [], columns: ['name'] })).toEqual({
      op: 'select',
      table: 'Port',
      where: [],
      columns: ['name'],
    });
    expect(
      encodeOperation({ op: 'update', table: 'Bridge', where: [['name', '==', 'b']], row: { x: 1 } }),
    ).toEqual({ op: 'update', table: 'Bridge', where: [['name', '==', 'b']], row: { x: 1 } });
    expect(encodeOperation({ op: 'delete', table: 'Port', where: [['name', '==', 'p']] })).toEqual({
      op: 'delete',
      table: 'Port',
      where: [['name', '==', 'p']],
    });
    expect(encodeOperation({ op: 'commit', durable: false })).toEqual({ op: 'commit', durable: false });
    expect(encodeOperation({ op: 'abort' })).toEqual({ op: 'abort' });
    expect(encodeOperation({ op: 'assert', lock: 'l' })).toEqual({ op: 'assert', lock: 'l' });
  });

  it('decodes a successful result', () => {
    const msg = classifyMessage(JSON.parse(fixture('transact-ok.response.json')));
    expect(msg.kind).toBe('response');
    if (msg.kind !== 'response') return;
    const results = decodeTransactResult(BRIDGE_OPS, msg.result);
    expect(results[0]?.uuid).toBeInstanceOf(Uuid);
    expect(results[0]?.uuid?.uuid).toBe('5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11');
    expect(results[1]?.count).toBe(1);
  });

  it('throws OVSDB_TXN_FAILED naming the failing operation', () => {
    const ops: Operation[] = [BRIDGE_OPS[2]!, { op: 'comment', comment: 'x' }];
    const msg = JSON.parse(fixture('transact-wait-failed.response.json'));
    const err = (() => {
      try {
        decodeTransactResult(ops, msg.result);
      } catch (e) {
        return e;
      }
    })() as OvsdbTxnError;
    expect(err).toBeInstanceOf(OvsdbTxnError);
    expect(err.code).toBe('OVSDB_TXN_FAILED');
    expect(err.opIndex).toBe(0);
    expect(err.op).toBe('wait');
    expect(err.error).toBe('timed out');
    expect(err.details).toMatch(/timed out/);
  });

  it('reports a commit failure (the extra trailing element) as a commit error', () => {
    const msg = JSON.parse(fixture('transact-commit-failed.response.json'));
    expect(() => decodeTransactResult([BRIDGE_OPS[0]!], msg.result)).toThrow(
      expect.objectContaining({ code: 'OVSDB_TXN_FAILED', opIndex: 1, op: undefined }),
    );
  });

  it('rejects malformed results', () => {
    expect(() => decodeTransactResult(BRIDGE_OPS, {})).toThrow(OvsdbProtocolError);
    expect(() => decodeTransactResult(BRIDGE_OPS, [{}])).toThrow(OvsdbProtocolError);
    expect(() => decodeTransactResult([BRIDGE_OPS[0]!], [{ uuid: 'x' }])).toThrow(OvsdbProtocolError);
    expect(() => decodeTransactResult([BRIDGE_OPS[0]!], [{ rows: 1 }])).toThrow(OvsdbProtocolError);
  });
});
