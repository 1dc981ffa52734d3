import type { CommandRunner } from '../net/command-runner.js';

/**
 * Egress IPs on the Node's transport interface, each as a /32. Antrea puts them on a dummy device
 * (antrea-egress0); with OVS's userspace datapath a tunnel is terminated in OVS only for addresses
 * of a bridge's internal port, and other Nodes tunnel to the Egress IP itself, so the IPs go on the
 * transport interface. They carry no label: OVS's tunnel port map skips addresses whose label
 * differs from the device name. Which /32s are the agent's is recorded in the Egress SNAT chain
 * (see EgressSnatRule.assigned), not told by the address itself.
 */
export class EgressAddresses {
  constructor(
    private readonly runner: CommandRunner,
    readonly device: string,
  ) {}

  /** The /32 addresses on the device that `managed` claims. */
  async owned(managed: (ip: string) => boolean): Promise<string[]> {
    const out = await this.runner.run(['ip', '-o', '-4', 'addr', 'show', 'dev', this.device]);
    return [...out.matchAll(/inet (\d+\.\d+\.\d+\.\d+)\/32/g)].map((m) => m[1] ?? '').filter(managed);
  }

  /** The IPv4 addresses on every interface of the Node (where static Egress IPs are looked for). */
  async nodeAddresses(): Promise<Set<string>> {
    const out = await this.runner.run(['ip', '-o', '-4', 'addr', 'show']);
    return new Set([...out.matchAll(/ inet (\d+\.\d+\.\d+\.\d+)\//g)].map((m) => m[1] ?? ''));
  }

  async add(ip: string): Promise<void> {
    await this.runner.run(['ip', 'addr', 'replace', `${ip}/32`, 'dev', this.device]);
  }

  async remove(ip: string): Promise<void> {
    await this.runner.run(['ip', 'addr', 'del', `${ip}/32`, 'dev', this.device]);
  }
}
