import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { CommandRunner } from '../net/command-runner.js';
import { NPL_CHAIN, NplIptables, nplRestoreInput, parseNplRules } from './iptables-rules.js';

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

/** iptables' nat table as far as NplIptables sees it: whether the chain exists, and its jumps. */
class FakeIptables implements CommandRunner {
  chain = false;
  readonly jumps = new Map<string, number>();
  readonly commands: string[] = [];
  restored = '';

  async run(argv: readonly string[], options?: { input?: string }): Promise<string> {
    this.commands.push(argv.join(' '));
    if (argv[0] === 'iptables-save') return this.save();
    if (argv[0] === 'iptables-restore') {
      this.restored = options?.input ?? '';
      for (const line of this.restored.split('\n')) {
        if (line === `:${NPL_CHAIN} - [0:0]`) this.chain = true;
        if (line === `-X ${NPL_CHAIN}`) this.chain = false;
        const from = /^-D (\S+) /.exec(line)?.[1];
        if (from) this.jumps.set(from, (this.jumps.get(from) ?? 0) - 1);
      }
      return '';
    }
    const [op, target] = argv.slice(5);
    const n = this.jumps.get(target!) ?? 0;
    if (op === '-C') return n > 0 ? '' : Promise.reject(new Error('iptables: Bad rule.'));
    if (op === '-A') this.jumps.set(target!, n + 1);
    return '';
  }

  /** `iptables-save -t nat` of this state. */
  private save(): string {
    const jumps = [...this.jumps].flatMap(([from, n]) =>
      Array<string>(n).fill(`-A ${from} -m addrtype --dst-type LOCAL -j ${NPL_CHAIN}`),
    );
    return [
      '*nat',
      ':PREROUTING ACCEPT [0:0]',
      ...(this.chain ? [`:${NPL_CHAIN} - [0:0]`] : []),
      ...jumps,
      'COMMIT',
    ].join('\n');
  }
}

describe('NplIptables', () => {
  const logger = pino({ level: 'silent' });

  it('sync writes the chain whole and adds each jump once', async () => {
    const ipt = new FakeIptables();
    const npl = new NplIptables(ipt, logger);
    await npl.sync([{ nodePort: 61000, protocol: 'tcp', podIp: '10.0.0.5', podPort: 80 }]);
    await npl.sync([]);
    expect(ipt.restored).toBe(nplRestoreInput([]));
    expect(Object.fromEntries(ipt.jumps)).toEqual({ PREROUTING: 1, OUTPUT: 1 });
  });

  it('cleanup removes the jumps and the chain; without the chain it runs one command', async () => {
    const ipt = new FakeIptables();
    const npl = new NplIptables(ipt, logger);
    await npl.sync([]);
    ipt.jumps.set('OUTPUT', 2);
    await npl.cleanup();
    expect(ipt.chain).toBe(false);
    expect(Object.fromEntries(ipt.jumps)).toEqual({ PREROUTING: 0, OUTPUT: 0 });
    ipt.commands.length = 0;
    await npl.cleanup();
    expect(ipt.commands).toEqual(['iptables-save -t nat']);
  });
});
