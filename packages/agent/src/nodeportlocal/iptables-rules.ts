import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';
import { chainsRemoval, type NatLeftovers, removeNatLeftovers } from '../proxy/nat-leftovers.js';
import type { NplProtocol } from './model.js';

/** Antrea's chain (pkg/agent/nodeportlocal/rules), in the nat table. */
export const NPL_CHAIN = 'ANTREA-NODE-PORT-LOCAL';

/** A DNAT rule of the chain: NodeIP:nodePort/protocol to podIp:podPort. */
export interface NplRule {
  readonly nodePort: number;
  readonly protocol: NplProtocol;
  readonly podIp: string;
  readonly podPort: number;
}

/** Traffic to any of the Node's own addresses, arriving (PREROUTING) or sent locally (OUTPUT). */
const JUMP = ['-m', 'addrtype', '--dst-type', 'LOCAL', '-j', NPL_CHAIN];
const JUMP_CHAINS = ['PREROUTING', 'OUTPUT'] as const;

const ruleArgs = (r: NplRule) =>
  `-p ${r.protocol} -m ${r.protocol} --dport ${r.nodePort} -j DNAT --to-destination ${r.podIp}:${r.podPort}`;

/**
 * The whole chain in iptables-restore syntax. Declaring the chain in a --noflush restore flushes
 * just that chain, so writing it is idempotent and leaves every other rule alone. Rules are sorted
 * so the same mappings always give the same text.
 */
export function nplRestoreInput(rules: readonly NplRule[]): string {
  const sorted = [...rules].sort((a, b) => a.nodePort - b.nodePort || a.protocol.localeCompare(b.protocol));
  return [
    '*nat',
    `:${NPL_CHAIN} - [0:0]`,
    ...sorted.map((r) => `-A ${NPL_CHAIN} ${ruleArgs(r)}`),
    'COMMIT',
    '',
  ].join('\n');
}

const RULE_LINE = new RegExp(
  `^-A ${NPL_CHAIN} -p (tcp|udp) -m (?:tcp|udp) --dport (\\d+) -j DNAT --to-destination (\\d+\\.\\d+\\.\\d+\\.\\d+):(\\d+)$`,
);

/** The DNAT rules of `iptables -t nat -S ANTREA-NODE-PORT-LOCAL` output; other lines are ignored. */
export function parseNplRules(saved: string): NplRule[] {
  const out: NplRule[] = [];
  for (const line of saved.split('\n')) {
    const m = RULE_LINE.exec(line.trim());
    if (m)
      out.push({
        protocol: m[1] as NplProtocol,
        nodePort: Number(m[2]),
        podIp: m[3]!,
        podPort: Number(m[4]),
      });
  }
  return out;
}

/** What NodePortLocal left in the nat table (the agent runs with it off): its chain and the jumps to it. */
export const nplLeftovers: NatLeftovers = (saved) => chainsRemoval(saved, [NPL_CHAIN]);

/**
 * NodePortLocal's iptables state on the Node: the chain, its jumps from nat PREROUTING and OUTPUT,
 * and its DNAT rules, always written whole with iptables-restore. Calls are serialized in call
 * order, so the last rule set written is what stays.
 */
export class NplIptables {
  private readonly log: Logger;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runner: CommandRunner,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'npl-iptables' });
  }

  /** The rules a previous run left in the chain (none when it does not exist). */
  async existing(): Promise<NplRule[]> {
    return parseNplRules(await this.iptables(['-S', NPL_CHAIN]).catch(() => ''));
  }

  /** Writes the chain with exactly these rules and makes sure both jumps exist. */
  sync(rules: readonly NplRule[]): Promise<void> {
    return this.serialized(async () => {
      await this.runner.run(['iptables-restore', '--noflush', '-w', '5'], { input: nplRestoreInput(rules) });
      for (const chain of JUMP_CHAINS) {
        if (!(await this.hasJump(chain))) await this.iptables(['-A', chain, ...JUMP]);
      }
      this.log.debug({ rules: rules.length }, 'NodePortLocal rules in place');
    });
  }

  /**
   * Removes the jumps and the chain (NodePortLocal disabled). Idempotent; one `iptables-save -t nat`
   * when there is nothing. At start-up the agent removes them with the other disabled features'
   * leftovers instead (`nplLeftovers`, one read for all).
   */
  cleanup(): Promise<void> {
    return this.serialized(async () => {
      await removeNatLeftovers(this.runner, [nplLeftovers]);
    });
  }

  private serialized(op: () => Promise<void>): Promise<void> {
    const run = this.queue.then(op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async hasJump(chain: string): Promise<boolean> {
    try {
      await this.iptables(['-C', chain, ...JUMP]);
      return true;
    } catch {
      return false;
    }
  }

  private iptables(args: readonly string[]): Promise<string> {
    return this.runner.run(['iptables', '-w', '5', '-t', 'nat', ...args]);
  }
}
