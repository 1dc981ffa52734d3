import { describe, expect, it } from 'vitest';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import { auditLine } from './audit-log.js';
import type { CompletedRule } from './rule-cache.js';

describe('audit log', () => {
  it('formats one line per logged packet', () => {
    const pipeline = new Pipeline(DEFAULT_FEATURES);
    const ip = Buffer.alloc(40);
    ip[0] = 0x45;
    ip.writeUInt16BE(40, 2);
    ip[9] = 6;
    Buffer.from([10, 244, 1, 3]).copy(ip, 12);
    Buffer.from([10, 244, 0, 2]).copy(ip, 16);
    ip.writeUInt16BE(41000, 20);
    ip.writeUInt16BE(80, 22);
    const frame = Buffer.concat([Buffer.alloc(12), Buffer.from([0x08, 0x00]), ip]);
    const rule = {
      direction: 'In',
      action: 'Drop',
      policy: {
        metadata: { name: 'u' },
        sourceRef: { type: 'AntreaClusterNetworkPolicy', name: 'acnp-log', uid: 'u' },
      },
      rule: { name: 'drop-y', direction: 'In', priority: 0, enableLogging: true },
    } as unknown as CompletedRule;
    const line = auditLine(
      { packet: frame, metadata: [], tableId: pipeline.id('AntreaPolicyIngressRule') },
      rule,
      63998,
      pipeline,
      (a) => (a === '10.244.0.2' ? 'x/a' : undefined),
      new Date(Date.UTC(2026, 10, 21, 11, 20, 1, 123)),
    );
    expect(line).toBe(
      '2026/11/21 11:20:01.123000 AntreaPolicyIngressRule AntreaClusterNetworkPolicy:acnp-log drop-y In Drop 63998 x/a 10.244.1.3 41000 10.244.0.2 80 TCP 40 -',
    );
  });
});
