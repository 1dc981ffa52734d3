import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';

// Egress SNAT on the Egress Node. Antrea sets an OVS pkt_mark per Egress IP and SNATs by that mark
// in nat POSTROUTING. With OVS's userspace datapath the mark does not survive the trip through
// antrea-gw0 (a tap device), so OVS instead gives the packets of each Egress a source MAC of its
// own (egressSourceMac) and iptables turns that MAC into the same mark where the packet enters the
// host (mangle PREROUTING on the gateway); nat POSTROUTING then SNATs by mark, before the Pod
// masquerade.

export const EGRESS_MARK_CHAIN = 'ANTREA-EGRESS-MARK';
export const EGRESS_SNAT_CHAIN = 'ANTREA-EGRESS';
/** The mark bits Egress uses (Antrea's SNATIPMarkMask). */
export const EGRESS_MARK_MASK = 0xff;

export interface EgressSnatRule {
  /** 1..255, unique per Egress IP on this Node. */
  readonly mark: number;
  readonly ip: string;
  /**
   * The agent put the IP on the transport interface (a pool IP), so it is the agent's to remove. The
   * SNAT rule records it: the chain is the one place that outlives the agent and is written before
   * the address is added and rewritten only after it is removed.
   */
  readonly assigned: boolean;
}

const SNAT_COMMENT = 'Antrea: SNAT Egress packets';
const ASSIGNED_SUFFIX = ' to an IP the agent assigned';

/** The source MAC OVS writes on packets of the Egress with this mark (locally administered). */
export function egressSourceMac(mark: number): string {
  return `aa:bb:cc:dd:ef:${mark.toString(16).padStart(2, '0')}`;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** Both chains in iptables-restore syntax; declaring a chain in a --noflush restore flushes it only. */
export function egressSnatRestoreInput(gatewayName: string, rules: readonly EgressSnatRule[]): string {
  const sorted = [...rules].sort((a, b) => a.mark - b.mark);
  return [
    '*mangle',
    `:${EGRESS_MARK_CHAIN} - [0:0]`,
    ...sorted.map(
      (r) =>
        `-A ${EGRESS_MARK_CHAIN} -i ${gatewayName} -m mac --mac-source ${egressSourceMac(r.mark)} -m comment --comment "Antrea: mark Egress ${r.ip} packets" -j MARK --set-xmark ${hex(r.mark)}/${hex(EGRESS_MARK_MASK)}`,
    ),
    'COMMIT',
    '*nat',
    `:${EGRESS_SNAT_CHAIN} - [0:0]`,
    ...sorted.map(
      (r) =>
        `-A ${EGRESS_SNAT_CHAIN} ! -o ${gatewayName} -m mark --mark ${hex(r.mark)}/${hex(EGRESS_MARK_MASK)} -m comment --comment "${SNAT_COMMENT}${r.assigned ? ASSIGNED_SUFFIX : ''}" -j SNAT --to-source ${r.ip}`,
    ),
    'COMMIT',
    '',
  ].join('\n');
}

const SNAT_LINE = new RegExp(
  `^-A ${EGRESS_SNAT_CHAIN} .*-m mark --mark (0x[0-9a-f]+)/${hex(EGRESS_MARK_MASK)} .*--comment "${SNAT_COMMENT}(${ASSIGNED_SUFFIX})?" -j SNAT --to-source (\\d+\\.\\d+\\.\\d+\\.\\d+)$`,
);

/**
 * The rule of each Egress IP in `iptables -t nat -S ANTREA-EGRESS` (or `iptables-save`) output;
 * other lines are ignored.
 */
export function parseEgressSnatRules(saved: string): EgressSnatRule[] {
  const out: EgressSnatRule[] = [];
  for (const line of saved.split('\n')) {
    const m = SNAT_LINE.exec(line.trim());
    if (m) out.push({ mark: Number(m[1]), ip: m[3]!, assigned: m[2] !== undefined });
  }
  return out;
}

const JUMPS: ReadonlyArray<{ table: string; chain: string; target: string }> = [
  { table: 'mangle', chain: 'PREROUTING', target: EGRESS_MARK_CHAIN },
  // First in POSTROUTING: an Egress packet is SNATed before the Pod masquerade can take it.
  { table: 'nat', chain: 'POSTROUTING', target: EGRESS_SNAT_CHAIN },
];

const jumpSpec = (target: string) => [
  '-m',
  'comment',
  '--comment',
  `Antrea: jump to ${target}`,
  '-j',
  target,
];

/**
 * What removes every trace of Egress from iptables, given `iptables-save` output: per table, the
 * chain flushed, each jump to it deleted as saved, the chain deleted; undefined when there is
 * nothing. One iptables-restore --noflush applies it atomically and touches no other rule.
 */
export function egressRemovalRestoreInput(saved: string): string | undefined {
  const out: string[] = [];
  for (const j of JUMPS) {
    const lines = tableLines(saved, j.table);
    const exists = lines.some((l) => l.startsWith(`:${j.target} `));
    const jumps = lines.filter((l) => l.startsWith(`-A ${j.chain} `) && l.endsWith(` -j ${j.target}`));
    if (!exists && jumps.length === 0) continue;
    out.push(
      `*${j.table}`,
      ...(exists ? [`:${j.target} - [0:0]`] : []),
      ...jumps.map((l) => `-D${l.slice(2)}`),
      ...(exists ? [`-X ${j.target}`] : []),
      'COMMIT',
    );
  }
  return out.length === 0 ? undefined : [...out, ''].join('\n');
}

/** The lines of one table's section of `iptables-save` output. */
function tableLines(saved: string, table: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of saved.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('*')) current = line.slice(1);
    else if (current === table) out.push(line);
  }
  return out;
}

/** Writes the Egress chains idempotently and keeps one jump to each at the head of its base chain. */
export class EgressSnat {
  private readonly log: Logger;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runner: CommandRunner,
    logger: Logger,
    private readonly gatewayName: string,
  ) {
    this.log = logger.child({ component: 'egress-snat' });
  }

  /** Serialized: concurrent calls apply in order, the last one wins. */
  ensure(rules: readonly EgressSnatRule[]): Promise<void> {
    const next = this.queue.then(() => this.apply(rules));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async apply(rules: readonly EgressSnatRule[]): Promise<void> {
    await this.runner.run(['iptables-restore', '--noflush', '-w', '5'], {
      input: egressSnatRestoreInput(this.gatewayName, rules),
    });
    for (const j of JUMPS) {
      const has = await this.iptables(['-t', j.table, '-C', j.chain, ...jumpSpec(j.target)]).then(
        () => true,
        () => false,
      );
      if (!has) await this.iptables(['-t', j.table, '-I', j.chain, '1', ...jumpSpec(j.target)]);
    }
    this.log.debug({ rules: rules.length }, 'Egress SNAT rules in place');
  }

  /** The rules a previous run left (none when the chain does not exist). */
  async existing(): Promise<EgressSnatRule[]> {
    return parseEgressSnatRules(await this.iptables(['-t', 'nat', '-S', EGRESS_SNAT_CHAIN]).catch(() => ''));
  }

  private iptables(args: readonly string[]): Promise<string> {
    return this.runner.run(['iptables', '-w', '5', ...args]);
  }
}
