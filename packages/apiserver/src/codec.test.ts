import { describe, expect, it } from 'vitest';
import { type ApiCodec, jsonCodec, negotiate } from './codec.js';

const proto: ApiCodec = {
  mediaType: 'application/vnd.kubernetes.protobuf',
  streamContentType: 'application/vnd.kubernetes.protobuf;stream=watch',
  encode: () => new Uint8Array([1]),
  frameWatchEvent: (_t, o) => o,
};

describe('negotiate', () => {
  const codecs = [jsonCodec, proto];
  it('picks the first acceptable type and honours q values', () => {
    expect(negotiate(undefined, codecs)).toBe(jsonCodec);
    expect(negotiate('application/vnd.kubernetes.protobuf', codecs)).toBe(proto);
    expect(negotiate('application/json;q=0.5, application/vnd.kubernetes.protobuf', codecs)).toBe(proto);
    expect(negotiate('*/*', codecs)).toBe(jsonCodec);
    expect(negotiate('application/*', [proto])).toBe(proto);
  });

  it('skips conversions it does not offer (kubectl Table, aggregated discovery)', () => {
    expect(
      negotiate(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
        codecs,
      ),
    ).toBe(jsonCodec);
    expect(
      negotiate('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList', codecs),
    ).toBeUndefined();
    expect(negotiate('text/html', codecs)).toBeUndefined();
    expect(negotiate('application/json;q=0', codecs)).toBeUndefined();
  });
});

describe('jsonCodec', () => {
  it('encodes byte fields as base64 like Go, whether Uint8Array or Buffer', () => {
    const ip = new Uint8Array([10, 244, 1, 2]);
    const object = { kind: 'AddressGroup', groupMembers: [{ ips: [ip] }], other: Buffer.from([0xfd, 0]) };
    const decoded = JSON.parse(new TextDecoder().decode(jsonCodec.encode(object)));
    expect(decoded.groupMembers[0].ips).toEqual(['CvQBAg==']);
    expect(decoded.other).toBe('/QA=');
  });

  it('frames watch events as newline-delimited JSON that decodes to type and object', () => {
    const frame = jsonCodec.frameWatchEvent('MODIFIED', jsonCodec.encode({ kind: 'X', a: 1 }));
    const text = new TextDecoder().decode(frame);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({ type: 'MODIFIED', object: { kind: 'X', a: 1 } });
  });
});
