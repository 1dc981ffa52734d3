import { describe, expect, it } from 'vitest';
import { OvsdbProtocolError } from '../errors.js';
import {
  decodeRow,
  decodeValue,
  encodeRow,
  encodeValue,
  mapToRecord,
  NamedUuid,
  namedUuid,
  OvsdbMap,
  OvsdbSet,
  optionalAtom,
  ovsMap,
  ovsSet,
  setItems,
  Uuid,
  uuid,
} from './value.js';

const U = '5a8e4a0c-6e2b-4f0e-9a43-2c7d5f4f3b11';

describe('OVSDB value codec', () => {
  it.each([
    ['string', 'br-int', 'br-int'],
    ['integer', 42, 42],
    ['real', 1.5, 1.5],
    ['boolean', true, true],
    ['uuid', uuid(U), ['uuid', U]],
    ['named-uuid', namedUuid('new_port'), ['named-uuid', 'new_port']],
    ['empty set', ovsSet(), ['set', []]],
    ['set', ovsSet('OpenFlow13', 'OpenFlow15'), ['set', ['OpenFlow13', 'OpenFlow15']]],
    ['set of uuids', ovsSet(uuid(U)), ['set', [['uuid', U]]]],
    ['empty map', ovsMap({}), ['map', []]],
    [
      'map',
      ovsMap({ remote_ip: 'flow', key: 'flow' }),
      [
        'map',
        [
          ['remote_ip', 'flow'],
          ['key', 'flow'],
        ],
      ],
    ],
  ])('encodes and decodes a %s', (_name, value, wire) => {
    expect(encodeValue(value)).toEqual(wire);
    expect(decodeValue(wire)).toEqual(value);
  });

  it('decodes a map with uuid values', () => {
    const v = decodeValue(['map', [[1, ['uuid', U]]]]);
    expect(v).toBeInstanceOf(OvsdbMap);
    expect((v as OvsdbMap).entries[0]![1]).toBeInstanceOf(Uuid);
  });

  it('normalises UUID case so equal rows compare equal', () => {
    expect(uuid(U.toUpperCase()).uuid).toBe(U);
  });

  it.each([
    ['null', null],
    ['an object', { a: 1 }],
    ['an untagged array', [1, 2]],
    ['a bad uuid', ['uuid', 'nope']],
    ['a bad named-uuid', ['named-uuid', '1abc']],
    ['a set of sets', ['set', [['set', []]]]],
    ['a set with a non-array body', ['set', 'x']],
    ['a map entry that is not a pair', ['map', [['k']]]],
    ['a map with a non-array body', ['map', {}]],
  ])('rejects %s with OVSDB_PROTOCOL', (_name, wire) => {
    expect(() => decodeValue(wire)).toThrow(OvsdbProtocolError);
  });

  it('round-trips rows', () => {
    const row = { name: 'gw0', ofport_request: 2, options: ovsMap({}), interfaces: ovsSet(namedUuid('i0')) };
    const wire = encodeRow(row);
    expect(wire).toEqual({
      name: 'gw0',
      ofport_request: 2,
      options: ['map', []],
      interfaces: ['set', [['named-uuid', 'i0']]],
    });
    expect(decodeRow(JSON.parse(JSON.stringify(wire)))).toEqual(row);
    expect(() => decodeRow([])).toThrow(OvsdbProtocolError);
  });

  it('reads sets that the server sent as a bare atom', () => {
    expect(setItems('OpenFlow15')).toEqual(['OpenFlow15']);
    expect(setItems(ovsSet())).toEqual([]);
    expect(setItems(undefined)).toEqual([]);
    expect(optionalAtom(5)).toBe(5);
    expect(optionalAtom(ovsSet())).toBeUndefined();
    expect(() => optionalAtom(ovsSet(1, 2))).toThrow(OvsdbProtocolError);
    expect(() => setItems(ovsMap({}))).toThrow(OvsdbProtocolError);
  });

  it('reads string maps as records', () => {
    expect(mapToRecord(ovsMap({ a: '1' }))).toEqual({ a: '1' });
    expect(mapToRecord(new OvsdbSet([]))).toEqual({});
    expect(mapToRecord(undefined)).toEqual({});
    expect(() => mapToRecord('x')).toThrow(OvsdbProtocolError);
  });

  it('validates named-uuid names at construction', () => {
    expect(() => new NamedUuid('has-dash')).toThrow(OvsdbProtocolError);
  });
});
