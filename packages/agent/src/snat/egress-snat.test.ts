import { describe, expect, it } from 'vitest';
import { egressSnatRestoreInput, egressSourceMac, parseEgressSnatRules } from './egress-snat.js';

describe('Egress SNAT rules', () => {
  it('marks by source MAC on the gateway and SNATs by mark, in mark order', () => {
    expect(
      egressSnatRestoreInput('antrea-gw0', [
        { mark: 2, ip: '198.19.5.201' },
        { mark: 1, ip: '198.19.5.200' },
      ]),
    ).toBe(
      [
        '*mangle',
        ':ANTREA-EGRESS-MARK - [0:0]',
        '-A ANTREA-EGRESS-MARK -i antrea-gw0 -m mac --mac-source aa:bb:cc:dd:ef:01 -m comment --comment "Antrea: mark Egress 198.19.5.200 packets" -j MARK --set-xmark 0x1/0xff',
        '-A ANTREA-EGRESS-MARK -i antrea-gw0 -m mac --mac-source aa:bb:cc:dd:ef:02 -m comment --comment "Antrea: mark Egress 198.19.5.201 packets" -j MARK --set-xmark 0x2/0xff',
        'COMMIT',
        '*nat',
        ':ANTREA-EGRESS - [0:0]',
        '-A ANTREA-EGRESS ! -o antrea-gw0 -m mark --mark 0x1/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 198.19.5.200',
        '-A ANTREA-EGRESS ! -o antrea-gw0 -m mark --mark 0x2/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 198.19.5.201',
        'COMMIT',
        '',
      ].join('\n'),
    );
    expect(egressSnatRestoreInput('antrea-gw0', [])).toContain(':ANTREA-EGRESS - [0:0]\nCOMMIT');
  });

  it('reads back the mark of each IP from the SNAT chain as iptables -S prints it', () => {
    const rules = [
      { mark: 1, ip: '198.19.5.200' },
      { mark: 12, ip: '198.19.5.201' },
    ];
    const saved = [
      '-N ANTREA-EGRESS',
      '-A ANTREA-EGRESS ! -o antrea-gw0 -m mark --mark 0x1/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 198.19.5.200',
      '-A ANTREA-EGRESS ! -o antrea-gw0 -m mark --mark 0xc/0xff -m comment --comment "Antrea: SNAT Egress packets" -j SNAT --to-source 198.19.5.201',
      '-A ANTREA-EGRESS -j RETURN',
      '',
    ].join('\n');
    expect(parseEgressSnatRules(saved)).toEqual(rules);
    // What the agent writes, it reads back.
    const written = egressSnatRestoreInput('antrea-gw0', rules)
      .split('\n')
      .filter((l) => l.startsWith('-A ANTREA-EGRESS '));
    expect(parseEgressSnatRules(written.join('\n'))).toEqual(rules);
    expect(parseEgressSnatRules('')).toEqual([]);
  });

  it('gives each mark a locally administered unicast MAC', () => {
    expect(egressSourceMac(1)).toBe('aa:bb:cc:dd:ef:01');
    expect(egressSourceMac(255)).toBe('aa:bb:cc:dd:ef:ff');
    expect(0xaa & 0b11).toBe(0b10);
  });
});
