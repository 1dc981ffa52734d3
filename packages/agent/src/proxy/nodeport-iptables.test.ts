import { describe, expect, it } from 'vitest';
import { nodePortRestoreInput } from './nodeport-iptables.js';

describe('nodePortRestoreInput', () => {
  it('declares both chains (a --noflush restore then rewrites them whole) with one rule per address and per port', () => {
    expect(
      nodePortRestoreInput(
        ['198.19.31.3', '198.19.31.2'],
        [
          { protocol: 'udp', port: 30053 },
          { protocol: 'tcp', port: 30080 },
        ],
      ).split('\n'),
    ).toEqual([
      '*nat',
      ':ANTREA-NODEPORT-IP - [0:0]',
      ':ANTREA-NODEPORT - [0:0]',
      '-A ANTREA-NODEPORT-IP -d 198.19.31.2/32 -j ANTREA-NODEPORT',
      '-A ANTREA-NODEPORT-IP -d 198.19.31.3/32 -j ANTREA-NODEPORT',
      '-A ANTREA-NODEPORT -p udp -m udp --dport 30053 -j DNAT --to-destination 169.254.0.252',
      '-A ANTREA-NODEPORT -p tcp -m tcp --dport 30080 -j DNAT --to-destination 169.254.0.252',
      'COMMIT',
      '',
    ]);
  });
});
