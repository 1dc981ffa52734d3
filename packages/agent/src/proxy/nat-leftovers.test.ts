import { describe, expect, it } from 'vitest';
import type { CommandRunner } from '../net/command-runner.js';
import { chainsRemoval, removeNatLeftovers } from './nat-leftovers.js';

const SAVED = [
  '*nat',
  ':PREROUTING ACCEPT [0:0]',
  ':OUTPUT ACCEPT [0:0]',
  ':A - [0:0]',
  ':B - [0:0]',
  '-A PREROUTING -j A',
  '-A OUTPUT -j A',
  '-A OUTPUT -j A',
  '-A OUTPUT -p tcp -j RETURN',
  '-A A -d 192.0.2.1/32 -j B',
  '-A B -p tcp -m tcp --dport 30080 -j DNAT --to-destination 169.254.0.252',
  'COMMIT',
].join('\n');

describe('nat leftovers', () => {
  it('removes the jumps from other chains (each copy), then flushes and deletes the chains together', () => {
    expect(chainsRemoval(SAVED, ['A', 'B'])).toEqual([
      '-D PREROUTING -j A',
      '-D OUTPUT -j A',
      '-D OUTPUT -j A',
      '-F A',
      '-F B',
      '-X A',
      '-X B',
    ]);
    // Only B: A's rule into B is a jump from another chain.
    expect(chainsRemoval(SAVED, ['B'])).toEqual(['-D A -d 192.0.2.1/32 -j B', '-F B', '-X B']);
    expect(chainsRemoval(SAVED, ['C'])).toEqual([]);
  });

  it('one read for every feature, one restore only when something is left', async () => {
    const calls: { argv: string; input?: string }[] = [];
    const runner: CommandRunner = {
      run: async (argv, o) => {
        calls.push({ argv: argv.join(' '), ...(o?.input ? { input: o.input } : {}) });
        return SAVED;
      },
    };
    expect(await removeNatLeftovers(runner, [(s) => chainsRemoval(s, ['C']), () => []])).toBe(0);
    expect(calls).toEqual([{ argv: 'iptables-save -t nat' }]);
    calls.length = 0;
    expect(await removeNatLeftovers(runner, [(s) => chainsRemoval(s, ['B']), () => ['-F X']])).toBe(4);
    expect(calls).toEqual([
      { argv: 'iptables-save -t nat' },
      {
        argv: 'iptables-restore --noflush -w 5',
        input: '*nat\n-D A -d 192.0.2.1/32 -j B\n-F B\n-X B\n-F X\nCOMMIT\n',
      },
    ]);
    calls.length = 0;
    expect(await removeNatLeftovers(runner, [])).toBe(0);
    expect(calls).toEqual([]);
  });
});
