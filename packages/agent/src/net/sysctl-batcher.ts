import { AgentError } from '../errors.js';
import { commitAllOrEach, GroupCommit, type ItemOutcome } from '../util/group-commit.js';
import type { CommandRunner } from './command-runner.js';

/** Sysctl keys in slash form (interface names may contain dots) and their values. */
export type Sysctls = Readonly<Record<string, string>>;

const KEY = /^[a-zA-Z0-9_./-]+$/;

/**
 * The host end of a Pod's veth is not an OVS-only port with userspace OVS: the Node's kernel sees
 * every frame OVS reads from it. Left alone, the kernel answers the Pod's ARP requests for any Node
 * address (the gateway's included) with the host end's MAC, then receives, delivers and routes what
 * the Pod sends to that MAC while OVS forwards the same frames: every packet arrives twice.
 * arp_ignore=1 keeps the kernel from answering for addresses that are not on the host end (it has
 * none), so Pods only learn MACs that OVS answers for and frames for them are not the kernel's;
 * forwarding=0 keeps it from routing whatever still reaches it there.
 */
export function hostVethSysctls(hostIfName: string): Sysctls {
  return {
    [`net/ipv4/conf/${hostIfName}/arp_ignore`]: '1',
    [`net/ipv4/conf/${hostIfName}/forwarding`]: '0',
  };
}

/**
 * Writes sysctls of concurrent callers with one `sysctl -w` process per group. When the group fails
 * (say, one interface vanished), each caller's keys are written again on their own so that only
 * the faulty caller fails.
 */
export class SysctlBatcher {
  private readonly group: GroupCommit<Sysctls>;

  constructor(private readonly runner: CommandRunner) {
    this.group = new GroupCommit((items) => this.write(items));
  }

  set(values: Sysctls): Promise<void> {
    for (const [k, v] of Object.entries(values)) {
      if (!KEY.test(k) || !KEY.test(v)) throw new AgentError('AGENT_COMMAND_FAILED', `bad sysctl ${k}=${v}`);
    }
    return this.group.submit(values);
  }

  private write(items: readonly Sysctls[]): Promise<ItemOutcome[]> {
    const argv = (values: Sysctls) => Object.entries(values).map(([k, v]) => `${k}=${v}`);
    const run = (args: string[]) => this.runner.run(['sysctl', '-q', '-w', ...args]);
    return commitAllOrEach(
      items,
      (all) => run(all.flatMap(argv)),
      (values) => run(argv(values)),
    );
  }
}
