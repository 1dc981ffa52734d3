import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';
import { VIRTUAL_NODEPORT_DNAT_IP } from '../openflow/features/service.js';
import { chainsRemoval, type NatLeftovers, removeNatLeftovers } from './nat-leftovers.js';
import type { NodePortKey } from './service-host-state.js';

/** nat chain matching the NodePort addresses (Antrea keeps them in the ANTREA-NODEPORT-IP ipset). */
export const NODEPORT_ADDRESS_CHAIN = 'ANTREA-NODEPORT-IP';
/** nat chain DNATing each NodePort to the virtual NodePort IP, port kept, so OVS proxies it. */
export const NODEPORT_CHAIN = 'ANTREA-NODEPORT';
/** Arriving from outside (PREROUTING) and sent by the Node itself (OUTPUT). */
const JUMP_FROM = ['PREROUTING', 'OUTPUT'] as const;
const JUMP = `-j ${NODEPORT_ADDRESS_CHAIN}`;

/**
 * Both chains in iptables-restore syntax: declaring a chain in a --noflush restore empties just
 * that chain, so the text is the whole state and writing it twice changes nothing. Two chains
 * instead of an ipset (not installed here): addresses x ports rules would grow as their product.
 */
export function nodePortRestoreInput(addresses: readonly string[], ports: readonly NodePortKey[]): string {
  return [
    '*nat',
    `:${NODEPORT_ADDRESS_CHAIN} - [0:0]`,
    `:${NODEPORT_CHAIN} - [0:0]`,
    ...[...addresses].sort().map((ip) => `-A ${NODEPORT_ADDRESS_CHAIN} -d ${ip}/32 -j ${NODEPORT_CHAIN}`),
    ...ports.map(
      (p) =>
        `-A ${NODEPORT_CHAIN} -p ${p.protocol} -m ${p.protocol} --dport ${p.port} -j DNAT --to-destination ${VIRTUAL_NODEPORT_DNAT_IP}`,
    ),
    'COMMIT',
    '',
  ].join('\n');
}

/** What proxyAll left in the nat table (the agent runs with it off): both chains and their jumps. */
export const nodePortLeftovers: NatLeftovers = (saved) =>
  chainsRemoval(saved, [NODEPORT_ADDRESS_CHAIN, NODEPORT_CHAIN]);

/** The jump lines `iptables-save -t nat` shows for the chains that lack one. */
const missingJumps = (saved: string): string[] =>
  JUMP_FROM.filter((chain) => !saved.split('\n').includes(`-A ${chain} ${JUMP}`));

/**
 * proxyAll's NodePort rules in the Node's nat table, written whole with iptables-restore; the
 * jumps go in at the top of PREROUTING and OUTPUT (before any masquerading rule could matter).
 */
export class NodePortIptables {
  private readonly log: Logger;

  constructor(
    private readonly runner: CommandRunner,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'nodeport-iptables' });
  }

  async sync(addresses: readonly string[], ports: readonly NodePortKey[]): Promise<void> {
    await this.runner.run(['iptables-restore', '--noflush', '-w', '5'], {
      input: nodePortRestoreInput(addresses, ports),
    });
    for (const chain of missingJumps(await this.save())) {
      await this.runner.run(['iptables', '-w', '5', '-t', 'nat', '-I', chain, '1', ...JUMP.split(' ')]);
    }
    this.log.debug({ addresses: addresses.length, ports: ports.length }, 'NodePort rules in place');
  }

  /** Removes the jumps and both chains (proxyAll off). Idempotent; one read when there is nothing. */
  async cleanup(): Promise<void> {
    if ((await removeNatLeftovers(this.runner, [nodePortLeftovers])) > 0)
      this.log.info('NodePort rules removed');
  }

  private save(): Promise<string> {
    return this.runner.run(['iptables-save', '-t', 'nat']);
  }
}
