import { describe, expect, it } from 'vitest';
import { parseLabels, parsePodRef, parsePorts } from './parse.js';

describe('parsePodRef', () => {
  it('takes ns/name and a bare name in default', () => {
    expect(parsePodRef('prod/web')).toEqual({ namespace: 'prod', name: 'web' });
    expect(parsePodRef('web')).toEqual({ namespace: 'default', name: 'web' });
  });
  it('rejects extra slashes and non-DNS names with LAB_INVALID_ARGUMENT', () => {
    for (const bad of ['a/b/c', '/web', 'Prod/web', 'prod/']) {
      expect(() => parsePodRef(bad)).toThrow(expect.objectContaining({ code: 'LAB_INVALID_ARGUMENT' }));
    }
  });
});

describe('parsePorts', () => {
  it('reads protocols (TCP by default) and port names', () => {
    expect(parsePorts('80/TCP,81/udp,http=8080')).toEqual([
      { port: 80, protocol: 'TCP' },
      { port: 81, protocol: 'UDP' },
      { port: 8080, protocol: 'TCP', name: 'http' },
    ]);
    expect(parsePorts('')).toEqual([]);
  });
  it('rejects out-of-range ports and unknown protocols', () => {
    for (const bad of ['0', '65536', '80/ICMP', 'x']) {
      expect(() => parsePorts(bad)).toThrow(expect.objectContaining({ code: 'LAB_INVALID_ARGUMENT' }));
    }
  });
});

describe('parseLabels', () => {
  it('reads k=v pairs, prefixed keys and empty values', () => {
    expect(parseLabels('app=web,example.com/tier=front,empty=')).toEqual({
      app: 'web',
      'example.com/tier': 'front',
      empty: '',
    });
  });
  it('rejects a pair without "=" or with a bad value', () => {
    expect(() => parseLabels('app')).toThrow(expect.objectContaining({ code: 'LAB_INVALID_ARGUMENT' }));
    expect(() => parseLabels('app=a b')).toThrow(expect.objectContaining({ code: 'LAB_INVALID_ARGUMENT' }));
  });
});
