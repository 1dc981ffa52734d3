import { describe, expect, it } from 'vitest';
import { CniError } from '../errors.js';
import { parseNetConf, peekCniVersion } from './net-conf.js';

const bytes = (s: string) => new TextEncoder().encode(s);

function failure(s: string): [number, string] {
  try {
    parseNetConf(bytes(s));
  } catch (err) {
    expect(err).toBeInstanceOf(CniError);
    return [(err as CniError).cniCode, (err as CniError).msg];
  }
  throw new Error(`parseNetConf accepted ${s}`);
}

describe('parseNetConf', () => {
  it('keeps the raw bytes and reads name, version and prevResult presence', () => {
    const raw = bytes('{"cniVersion":"1.0.0","name":"antrea","type":"antrea","prevResult":{"ips":[]}}');
    const conf = parseNetConf(raw);
    expect(conf).toMatchObject({ name: 'antrea', cniVersion: '1.0.0', hasPrevResult: true });
    expect(conf.raw).toBe(raw);
    expect(parseNetConf(bytes('{"cniVersion":"1.1.0","name":"n"}')).hasPrevResult).toBe(false);
  });

  it('defaults a missing cniVersion to 0.1.0, as libcni does', () => {
    expect(parseNetConf(bytes('{"name":"antrea"}')).cniVersion).toBe('0.1.0');
  });

  it.each([
    ['', 6],
    ['{', 6],
    ['[]', 6],
    ['"antrea"', 6],
    ['{"name":5}', 6],
    ['{"name":"antrea","cniVersion":1}', 6],
  ])('rejects undecodable config %j with code 6', (s, code) => {
    expect(failure(s)[0]).toBe(code);
  });

  it('rejects bytes that are not UTF-8 with code 6', () => {
    expect(() => parseNetConf(Uint8Array.from([0x7b, 0xff, 0x7d]))).toThrow(CniError);
  });

  it.each([
    ['{}', 'missing network name'],
    ['null', 'missing network name'],
    ['{"name":""}', 'missing network name'],
    ['{"name":"has space"}', 'invalid characters found in network name'],
  ])('rejects %j with code 7', (s, msg) => {
    expect(failure(s)).toEqual([7, msg]);
  });

  it('rejects unknown CNI versions with code 1 and lists what it supports', () => {
    try {
      parseNetConf(bytes('{"name":"antrea","cniVersion":"2.0.0"}'));
      expect.unreachable();
    } catch (err) {
      expect((err as CniError).cniCode).toBe(1);
      expect((err as CniError).details).toBe(
        'config is "2.0.0", plugin supports ["0.1.0" "0.2.0" "0.3.0" "0.3.1" "0.4.0" "1.0.0" "1.1.0"]',
      );
    }
  });
});

describe('peekCniVersion', () => {
  it('returns a supported version and nothing for garbage or unknown versions', () => {
    expect(peekCniVersion(bytes('{"cniVersion":"0.4.0"}'))).toBe('0.4.0');
    expect(peekCniVersion(bytes('{"cniVersion":"7.0.0"}'))).toBeUndefined();
    expect(peekCniVersion(bytes('nope'))).toBeUndefined();
    expect(peekCniVersion(bytes('null'))).toBeUndefined();
  });
});
