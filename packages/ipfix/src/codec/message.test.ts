import { describe, expect, it } from 'vitest';
import { ANTREA_ENTERPRISE_ID, IANA_REVERSE_ENTERPRISE_ID, infoElement } from '../registry.js';
import { decodeMessage, encodeMessage, TemplateCache, type TemplateRecord } from './message.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/[^0-9a-f]/g, ''), 'hex');

// Template 256: two IANA addresses, an IANA u8, an Antrea variable-length string (enterprise bit,
// PEN 56506 = 0xdcba) and an RFC 5103 reverse counter (PEN 29305 = 0x7279).
const template: TemplateRecord = {
  templateId: 256,
  elements: [
    infoElement('sourceIPv4Address'),
    infoElement('destinationIPv4Address'),
    infoElement('protocolIdentifier'),
    infoElement('sourcePodName', ANTREA_ENTERPRISE_ID),
    infoElement('reverseOctetDeltaCount', IANA_REVERSE_ENTERPRISE_ID),
  ],
};
const header = { exportTime: 0x65000000, sequence: 7, domainId: 0xdeadbeef };

// RFC 7011: message header (3.1), set header (3.3.2), template record (3.4.1), field
// specifiers with and without enterprise numbers (3.2). 16 + 4 + 4 + 3*4 + 8 + 8 = 52 bytes.
const TEMPLATE_MESSAGE = hex(`
  000a 0034 65000000 00000007 deadbeef
  0002 0024
  0100 0005
  0008 0004  000c 0004  0004 0001
  8065 ffff 0000dcba
  8001 0008 00007279
`);

// Data set 256 (3.3.2, 3.4.3): 10.0.0.1, 10.0.0.2, 6, "web-0" with a 1-byte length (7), 1024.
// 16 + 4 + 4 + 4 + 1 + 6 + 8 = 43 bytes.
const DATA_MESSAGE = hex(`
  000a 002b 65000000 00000007 deadbeef
  0100 001b
  0a000001 0a000002 06
  05 7765622d30
  0000000000000400
`);

describe('IPFIX message codec (golden bytes)', () => {
  it('encodes a template set with IANA, enterprise and reverse elements', () => {
    expect(encodeMessage(header, [{ templates: [template] }]).toString('hex')).toBe(
      TEMPLATE_MESSAGE.toString('hex'),
    );
  });

  it('encodes a data record with a variable-length string', () => {
    const buf = encodeMessage(header, [{ template, records: [['10.0.0.1', '10.0.0.2', 6, 'web-0', 1024n]] }]);
    expect(buf.toString('hex')).toBe(DATA_MESSAGE.toString('hex'));
  });

  it('decodes templates first, then data with them', () => {
    const cache = new TemplateCache();
    const before = decodeMessage(DATA_MESSAGE, cache);
    expect(before.records).toEqual([]);
    expect(before.unknownSets).toEqual([256]);
    const t = decodeMessage(TEMPLATE_MESSAGE, cache);
    expect(t).toMatchObject({ exportTime: 0x65000000, sequence: 7, domainId: 0xdeadbeef });
    expect(t.templates[0]!.fields.map((f) => [f.element.name, f.length])).toEqual([
      ['sourceIPv4Address', 4],
      ['destinationIPv4Address', 4],
      ['protocolIdentifier', 1],
      ['sourcePodName', 0xffff],
      ['reverseOctetDeltaCount', 8],
    ]);
    const d = decodeMessage(DATA_MESSAGE, cache);
    expect(d.records).toEqual([
      {
        templateId: 256,
        values: {
          sourceIPv4Address: '10.0.0.1',
          destinationIPv4Address: '10.0.0.2',
          protocolIdentifier: 6,
          sourcePodName: 'web-0',
          reverseOctetDeltaCount: 1024n,
        },
      },
    ]);
  });

  it('uses the 3-byte length form from 255 bytes on (RFC 7011 section 7)', () => {
    const t: TemplateRecord = { templateId: 300, elements: [infoElement('tcpState', ANTREA_ENTERPRISE_ID)] };
    const long = 'x'.repeat(300);
    const buf = encodeMessage(header, [{ template: t, records: [[long], ['']] }]);
    // set: 4 + (3 + 300) + 1; the second record is an empty string: one zero byte.
    expect(buf.subarray(16, 23).toString('hex')).toBe(`012c0134ff012c`);
    expect(buf[buf.length - 1]).toBe(0);
    expect(buf.length).toBe(16 + 4 + 303 + 1);
    const cache = new TemplateCache();
    decodeMessage(encodeMessage(header, [{ templates: [t] }]), cache);
    expect(decodeMessage(buf, cache).records.map((r) => r.values.tcpState)).toEqual([long, '']);
    // 254 bytes still fits the 1-byte form.
    const b254 = encodeMessage(header, [{ template: t, records: [['y'.repeat(254)]] }]);
    expect(b254.subarray(20, 21).toString('hex')).toBe('fe');
  });

  it('round-trips every value type of the registry subset', () => {
    const t: TemplateRecord = {
      templateId: 400,
      elements: [
        infoElement('flowStartSeconds'),
        infoElement('flowEndMilliseconds'),
        infoElement('sourceTransportPort'),
        infoElement('sourceIPv6Address'),
        infoElement('ingressNetworkPolicyRulePriority', ANTREA_ENTERPRISE_ID),
        infoElement('sourcePodUUID', ANTREA_ENTERPRISE_ID),
        infoElement('packetTotalCount'),
      ],
    };
    const uuid = Uint8Array.from({ length: 16 }, (_, i) => i);
    const values = [1_700_000_000, 1_700_000_000_123n, 65535, 'fd00::1:0:0:5', -5, uuid, 2n ** 64n - 1n];
    const cache = new TemplateCache();
    decodeMessage(encodeMessage(header, [{ templates: [t] }]), cache);
    const got = decodeMessage(encodeMessage(header, [{ template: t, records: [values] }]), cache).records[0]!;
    expect(Object.values(got.values)).toEqual(values);
  });

  it('reads reduced-size integers and keeps unknown elements as bytes', () => {
    // Template 500: packetDeltaCount in 4 bytes (reduced size), enterprise 9 element 7 (unknown), 2 bytes.
    const cache = new TemplateCache();
    decodeMessage(
      hex('000a 0024 00000000 00000000 00000001 0002 0014 01f4 0002 0002 0004 8007 0002 00000009'),
      cache,
    );
    const d = decodeMessage(hex('000a 001a 00000000 00000000 00000001 01f4 000a 00000102 abcd'), cache);
    expect(d.records[0]!.values).toEqual({ packetDeltaCount: 258n, '9:7': Uint8Array.from([0xab, 0xcd]) });
  });

  it('refuses template lengths an element cannot have (a longer integer, a short address)', () => {
    const template = (spec: string) =>
      decodeMessage(
        hex(`000a 001c 00000000 00000000 00000001 0002 000c 01f4 0001 ${spec}`),
        new TemplateCache(),
      );
    expect(() => template('0007 0008')).toThrow(/sourceTransportPort \(unsigned16\) cannot be 8 bytes/);
    expect(() => template('0008 0002')).toThrow(/sourceIPv4Address \(ipv4Address\) cannot be 2 bytes/);
    expect(() => template('0007 ffff')).toThrow(/cannot be 65535 bytes/);
    expect(template('0007 0001').templates[0]!.fields[0]!.length).toBe(1);
  });

  it('withdraws a template announced with no fields', () => {
    const cache = new TemplateCache();
    decodeMessage(TEMPLATE_MESSAGE, cache);
    expect(cache.get(0xdeadbeef, 256)).toBeDefined();
    decodeMessage(hex('000a 0018 00000000 00000000 deadbeef 0002 0008 0100 0000'), cache);
    expect(cache.get(0xdeadbeef, 256)).toBeUndefined();
  });

  it('withdraws all of a domain’s templates with template id 2, and only that domain’s', () => {
    const cache = new TemplateCache();
    decodeMessage(TEMPLATE_MESSAGE, cache);
    const other = Buffer.from(TEMPLATE_MESSAGE);
    other.writeUInt32BE(7, 12);
    decodeMessage(other, cache);
    decodeMessage(hex('000a 0018 00000000 00000000 deadbeef 0002 0008 0002 0000'), cache);
    expect(cache.get(0xdeadbeef, 256)).toBeUndefined();
    expect(cache.get(7, 256)).toBeDefined();
  });

  it('refuses malformed messages with IPFIX_DECODE', () => {
    const cache = new TemplateCache();
    expect(() => decodeMessage(hex('0009 0010 00000000 00000000 00000000'), cache)).toThrow(/version 9/);
    expect(() => decodeMessage(hex('000a 0030 00000000 00000000 00000000'), cache)).toThrow(/message length/);
    expect(() =>
      decodeMessage(hex('000a 0018 00000000 00000000 00000000 0002 0010 0100 0000'), cache),
    ).toThrow(/set length/);
    // A variable-length field longer than its set.
    decodeMessage(TEMPLATE_MESSAGE, cache);
    const bad = Buffer.from(DATA_MESSAGE);
    bad[16 + 4 + 9] = 0x40;
    try {
      decodeMessage(bad, cache);
      expect.unreachable();
    } catch (err) {
      expect((err as { code: string }).code).toBe('IPFIX_DECODE');
    }
  });

  it('refuses values that do not fit with IPFIX_ENCODE', () => {
    const t: TemplateRecord = { templateId: 256, elements: [infoElement('protocolIdentifier')] };
    expect(() => encodeMessage(header, [{ template: t, records: [[256]] }])).toThrow(/does not fit/);
    expect(() => encodeMessage(header, [{ template: t, records: [[6n]] }])).toThrow(/does not fit/);
    const ip: TemplateRecord = { templateId: 256, elements: [infoElement('sourceIPv4Address')] };
    expect(() => encodeMessage(header, [{ template: ip, records: [['10.0.0']] }])).toThrow(/IPv4/);
    for (const bad of ['10.0.0.1.5', '256.0.0.1', '1..2.3', 'a.b.c.d', '', '1.2.3.4 '])
      expect(() => encodeMessage(header, [{ template: ip, records: [[bad]] }])).toThrow(/IPv4/);
    expect(() => encodeMessage(header, [{ template: { ...t, templateId: 255 }, records: [] }])).toThrow(
      /below 256/,
    );
  });
});
