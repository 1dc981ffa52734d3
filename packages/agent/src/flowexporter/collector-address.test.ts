import { describe, expect, it } from 'vitest';
import { parseCollectorAddress } from './collector-address.js';

describe('flowCollectorAddr', () => {
  it('reads <HOST>:[<PORT>][:<PROTO>] as Antrea does', () => {
    expect(parseCollectorAddress('10.0.0.5:4739:udp')).toEqual({
      host: '10.0.0.5',
      port: 4739,
      transport: 'udp',
    });
    // Antrea's defaults: port 4739, IPFIX over tls.
    expect(parseCollectorAddress('collector.example')).toEqual({
      host: 'collector.example',
      port: 4739,
      transport: 'tls',
    });
    expect(parseCollectorAddress('flow-aggregator/flow-aggregator:4739:tcp').host).toBe(
      'flow-aggregator/flow-aggregator',
    );
    expect(parseCollectorAddress('[fd00::5]:2055:udp')).toEqual({
      host: 'fd00::5',
      port: 2055,
      transport: 'udp',
    });
    expect(parseCollectorAddress('10.0.0.5::udp').port).toBe(4739);
    // Antrea's chart default.
    expect(parseCollectorAddress('flow-aggregator/flow-aggregator:14739:grpc')).toEqual({
      host: 'flow-aggregator/flow-aggregator',
      port: 14739,
      transport: 'grpc',
    });
  });

  it('refuses what it cannot speak or parse', () => {
    expect(() => parseCollectorAddress('10.0.0.5:4739:sctp')).toThrow(/unknown protocol sctp/);
    expect(() => parseCollectorAddress('10.0.0.5:99999')).toThrow(/bad port/);
    expect(() => parseCollectorAddress(':4739')).toThrow(/no host/);
    expect(() => parseCollectorAddress('10.0.0.5:1:tcp:x')).toThrow(/expected/);
    expect(() => parseCollectorAddress('[fd00::5:4739')).toThrow(/unterminated/);
  });
});
