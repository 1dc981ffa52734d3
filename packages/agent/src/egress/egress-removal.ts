import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';
import { egressRemovalRestoreInput, parseEgressSnatRules } from '../snat/egress-snat.js';
import { EgressAddresses } from './egress-address.js';

/**
 * Egress turned off: removes what a run with it on left on the Node (as NodePortLocal does when
 * off). One `iptables-save` tells everything: the chains and jumps, and, in the SNAT chain, the pool
 * IPs the agent put on the transport interface. Those IPs go first, then both chains and their jumps
 * in one iptables-restore, so a failure half-way leaves the record of what is left. A Node that
 * never ran Egress costs the one iptables-save. The EgressMark flows need nothing here: they carry
 * the previous round's cookie, which the agent deletes once its own flows are in.
 */
export async function removeEgressState(
  runner: CommandRunner,
  transportInterface: string,
  logger: Logger,
): Promise<void> {
  const saved = await runner.run(['iptables-save']);
  const assigned = new Set(parseEgressSnatRules(saved).flatMap((r) => (r.assigned ? [r.ip] : [])));
  const addresses = new EgressAddresses(runner, transportInterface);
  const present = assigned.size === 0 ? [] : await addresses.owned((ip) => assigned.has(ip));
  for (const ip of present) await addresses.remove(ip);
  const input = egressRemovalRestoreInput(saved);
  if (input) await runner.run(['iptables-restore', '--noflush', '-w', '5'], { input });
  if (input || present.length > 0) {
    logger
      .child({ component: 'egress-removal' })
      .info(
        { removedIps: present },
        'Egress is off: removed the Egress IPs and iptables chains of a previous run',
      );
  }
}
