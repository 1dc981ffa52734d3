import { describe, expect, it } from 'vitest';
import { snatRestoreInput } from './iptables-snat.js';

describe('SNAT rules', () => {
  it('declares our chain (flushing only it) with exclusions before the masquerade', () => {
    expect(snatRestoreInput('10.10.1.0/24', 'antrea-gw0', ['10.10.3.0/24', '10.10.2.0/24'])).toBe(
      [
        '*nat',
        ':ANTREA-POSTROUTING - [0:0]',
        '-A ANTREA-POSTROUTING -s 10.10.1.0/24 -d 10.10.2.0/24 -m comment --comment "Antrea: do not masquerade pod to pod packets" -j RETURN',
        '-A ANTREA-POSTROUTING -s 10.10.1.0/24 -d 10.10.3.0/24 -m comment --comment "Antrea: do not masquerade pod to pod packets" -j RETURN',
        '-A ANTREA-POSTROUTING -s 10.10.1.0/24 ! -o antrea-gw0 -m comment --comment "Antrea: masquerade pod to external packets" -j MASQUERADE',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });
});
