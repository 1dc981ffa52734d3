import type { CommandRunner } from '../net/command-runner.js';

/**
 * Egress IPs on the Node's transport interface. Antrea puts them on a dummy device
 * (antrea-egress0); with OVS's userspace datapath the tunnel is terminated in OVS only for
 * addresses of a bridge's internal port, and other Nodes tunnel to the Egress IP itself, so the IPs
 * go on the transport interface, each as a /32 with a label of ours, which tells them apart from the
 * Node's own addresses after a restart.
 */
export class EgressAddresses {
  readonly label: string;

  constructor(
    private readonly runner: CommandRunner,
    readonly device: string,
  ) {
    // A label must start with the device name and fit in IFNAMSIZ - 1 characters.
    this.label = `${device}:eg`.slice(0, 15);
  }

  /** The Egress IPs this agent put on the device (by label). */
  async owned(): Promise<string[]> {
    const out = await this.runner.run([
      'ip',
      '-o',
      '-4',
      'addr',
      'show',
      'dev',
      this.device,
      'label',
      this.label,
    ]);
    return [...out.matchAll(/inet (\d+\.\d+\.\d+\.\d+)\/32/g)].map((m) => m[1] ?? '');
  }

  /** Whether any interface of the Node holds `ip` (a static Egress IP configured by the user). */
  async isLocal(ip: string): Promise<boolean> {
    const out = await this.runner.run(['ip', '-o', '-4', 'addr', 'show']);
    return out.split('\n').some((line) => line.includes(` inet ${ip}/`));
  }

  async add(ip: string): Promise<void> {
    await this.runner.run(['ip', 'addr', 'replace', `${ip}/32`, 'dev', this.device, 'label', this.label]);
  }

  async remove(ip: string): Promise<void> {
    await this.runner.run(['ip', 'addr', 'del', `${ip}/32`, 'dev', this.device]);
  }
}
