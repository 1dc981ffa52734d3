import { describe, expect, it } from 'vitest';
import { OfParseError } from '../errors.js';
import { SAMPLE_FLOWS } from '../testing/sample-flows.js';
import { formatFlow } from './flow-format.js';
import { parseFlow, parseMatch } from './flow-parse.js';

describe('parseFlow reads ovs-ofctl flow syntax back into flows', () => {
  for (const s of SAMPLE_FLOWS) {
    it(s.name, () => {
      const f = parseFlow(s.text);
      expect(f.match).toEqual(s.flow.match);
      expect(f.actions).toEqual(s.flow.actions);
      expect(f.table ?? 0).toBe(s.flow.table ?? 0);
      expect(f.priority ?? 0x8000).toBe(s.flow.priority ?? 0x8000);
      expect(f.cookie ?? 0n).toBe(s.flow.cookie ?? 0n);
      expect(formatFlow(f)).toBe(s.text);
    });
  }

  it('ignores statistics and accepts the dump-flows leading space', () => {
    const f = parseFlow(
      ' cookie=0x0, duration=12.5s, table=0, n_packets=3, n_bytes=180, idle_age=2, priority=1,in_port=LOCAL actions=NORMAL',
    );
    expect(formatFlow(f)).toBe('priority=1,in_port=LOCAL actions=NORMAL');
  });

  it('parses matches alone and rejects nonsense', () => {
    expect(parseMatch('udp,tp_dst=53')).toEqual([
      { field: 'eth_type', value: 0x800n },
      { field: 'ip_proto', value: 17n },
      { field: 'udp_dst', value: 53n },
    ]);
    expect(() => parseFlow('ip,bogus=1 actions=drop')).toThrow(OfParseError);
    expect(() => parseFlow('ip actions=frobnicate')).toThrow(OfParseError);
    expect(() => parseFlow('ip')).toThrow(OfParseError);
  });
});
