import { describe, expect, it } from 'vitest';
import { nplRestoreInput, parseNplRules } from './iptables-rules.js';

describe('NodePortLocal iptables rules', () => {
  const rules = [
    { nodePort: 61001, protocol: 'udp' as const, podIp: '10.0.0.6', podPort: 53 },
    { nodePort: 61000, protocol: 'tcp' as const, podIp: '10.0.0.5', podPort: 80 },
    { nodePort: 61000, protocol: 'udp' as const, podIp: '10.0.0.5', podPort: 80 },
  ];

  it("declares Antrea's chain (flushing only it) with one DNAT per mapping, sorted", () => {
    expect(nplRestoreInput(rules)).toBe(
      [
        '*nat',
        ':ANTREA-NODE-PORT-LOCAL - [0:0]',
        '-A ANTREA-NODE-PORT-LOCAL -p tcp -m tcp --dport 61000 -j DNAT --to-destination 10.0.0.5:80',
        '-A ANTREA-NODE-PORT-LOCAL -p udp -m udp --dport 61000 -j DNAT --to-destination 10.0.0.5:80',
        '-A ANTREA-NODE-PORT-LOCAL -p udp -m udp --dport 61001 -j DNAT --to-destination 10.0.0.6:53',
        'COMMIT',
        '',
      ].join('\n'),
    );
    expect(nplRestoreInput([])).toBe('*nat\n:ANTREA-NODE-PORT-LOCAL - [0:0]\nCOMMIT\n');
  });

  it('reads the rules back from iptables -S, ignoring the chain line and foreign rules', () => {
    const saved = [
      '-N ANTREA-NODE-PORT-LOCAL',
      ...nplRestoreInput(rules)
        .split('\n')
        .filter((l) => l.startsWith('-A')),
      '-A ANTREA-NODE-PORT-LOCAL -p tcp -m tcp --dport 61005 -j RETURN',
      '',
    ].join('\n');
    expect(parseNplRules(saved)).toEqual([rules[1], rules[2], rules[0]]);
  });
});
