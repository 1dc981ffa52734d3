import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';

export const SNAT_CHAIN = 'ANTREA-POSTROUTING';
const JUMP_COMMENT = 'Antrea: jump to Antrea postrouting rules';
const MASQ_COMMENT = 'Antrea: masquerade pod to external packets';
const SKIP_COMMENT = 'Antrea: do not masquerade pod to pod packets';

/**
 * The rules of our chain, in iptables-restore syntax. Declaring the chain in a --noflush restore
 * flushes just that chain, so writing it again is idempotent and never touches others' rules.
 */
export function snatRestoreInput(
  podCidr: string,
  gatewayName: string,
  clusterPodCidrs: readonly string[] = [],
): string {
  return [
    '*nat',
    `:${SNAT_CHAIN} - [0:0]`,
    // Pod-to-Pod traffic routed between Nodes (noEncap, hybrid) keeps its source address, as
    // Antrea's "! --match-set ANTREA-POD-IP dst" does.
    ...[...clusterPodCidrs]
      .sort()
      .map((c) => `-A ${SNAT_CHAIN} -s ${podCidr} -d ${c} -m comment --comment "${SKIP_COMMENT}" -j RETURN`),
    `-A ${SNAT_CHAIN} -s ${podCidr} ! -o ${gatewayName} -m comment --comment "${MASQ_COMMENT}" -j MASQUERADE`,
    'COMMIT',
    '',
  ].join('\n');
}

const jumpRule = ['POSTROUTING', '-m', 'comment', '--comment', JUMP_COMMENT, '-j', SNAT_CHAIN];

/**
 * Pod-to-external SNAT (Antrea route_linux.go): MASQUERADE whatever leaves the Node from the
 * podCIDR other than back into antrea-gw0, in our own chain jumped to from nat POSTROUTING.
 */
export class IptablesSnat {
  private readonly log: Logger;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runner: CommandRunner,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'iptables-snat' });
  }

  /** Serialized in call order, so the last call's rule set is what stays. */
  ensure(podCidr: string, gatewayName: string, clusterPodCidrs: readonly string[] = []): Promise<void> {
    const run = this.queue.then(() => this.apply(podCidr, gatewayName, clusterPodCidrs));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async apply(
    podCidr: string,
    gatewayName: string,
    clusterPodCidrs: readonly string[],
  ): Promise<void> {
    await this.runner.run(['iptables-restore', '--noflush', '-w', '5'], {
      input: snatRestoreInput(podCidr, gatewayName, clusterPodCidrs),
    });
    if (!(await this.hasJump())) {
      await this.runner.run(['iptables', '-w', '5', '-t', 'nat', '-A', ...jumpRule]);
    }
    this.log.debug({ podCidr, exclusions: clusterPodCidrs.length }, 'SNAT rules in place');
  }

  async cleanup(): Promise<void> {
    while (await this.hasJump()) {
      await this.runner.run(['iptables', '-w', '5', '-t', 'nat', '-D', ...jumpRule]);
    }
    await this.runner.run(['iptables', '-w', '5', '-t', 'nat', '-F', SNAT_CHAIN]).catch(() => undefined);
    await this.runner.run(['iptables', '-w', '5', '-t', 'nat', '-X', SNAT_CHAIN]).catch(() => undefined);
  }

  /** The chain's rules as iptables -S prints them (for tests and diagnostics). */
  async rules(): Promise<string[]> {
    try {
      const out = await this.runner.run(['iptables', '-w', '5', '-t', 'nat', '-S', SNAT_CHAIN]);
      return out.split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }

  private async hasJump(): Promise<boolean> {
    try {
      await this.runner.run(['iptables', '-w', '5', '-t', 'nat', '-C', ...jumpRule]);
      return true;
    } catch {
      return false;
    }
  }
}
