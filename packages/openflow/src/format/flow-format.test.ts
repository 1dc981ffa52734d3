import { describe, expect, it } from 'vitest';
import { decodeFlowMod, encodeFlowMod } from '../codec/flow-mod.js';
import { SAMPLE_FLOWS } from '../testing/sample-flows.js';
import { formatFlow } from './flow-format.js';

describe('formatFlow prints ovs-ofctl dump-flows syntax', () => {
  for (const s of SAMPLE_FLOWS) {
    it(s.name, () => {
      expect(formatFlow(s.flow)).toBe(s.text);
    });
  }

  it('prints stats like dump-flows without --no-stats', () => {
    const f = SAMPLE_FLOWS[0]!.flow;
    const text = formatFlow(
      { ...f, durationSec: 3, durationNsec: 450_000_000, packetCount: 2n, byteCount: 120n, idleAgeSec: 1 },
      { stats: true },
    );
    expect(text).toBe(
      'cookie=0x1, duration=3.450s, table=10, n_packets=2, n_bytes=120, idle_age=1, ' +
        'priority=200,ip,nw_src=10.0.0.0/24 actions=conjunction(1,1/3)',
    );
  });
});

describe('flow_mod encode/decode round trip', () => {
  for (const s of SAMPLE_FLOWS) {
    it(s.name, () => {
      const bytes = encodeFlowMod(0x1234, { command: 'ADD', ...s.flow });
      expect(bytes.length % 8).toBe(0);
      const back = decodeFlowMod(bytes);
      expect(back.command).toBe('ADD');
      expect(formatFlow(back)).toBe(s.text);
      expect(back.match).toEqual(s.flow.match);
    });
  }
});
