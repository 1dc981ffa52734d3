import { join } from 'node:path';
import { AgentError } from '../errors.js';
import type { CommandRunner } from '../net/command-runner.js';

export interface IpamResult {
  /** e.g. 10.10.1.5/24 */
  readonly address: string;
  readonly gateway: string;
}

export interface Ipam {
  add(containerId: string, ifName: string, netns: string): Promise<IpamResult>;
  del(containerId: string, ifName: string, netns: string): Promise<void>;
  check(containerId: string, ifName: string, netns: string): Promise<void>;
}

export interface HostLocalOptions {
  readonly binDir: string;
  readonly dataDir: string | undefined;
  readonly podCidr: string;
  readonly gatewayIp: string;
  /** Network name; host-local keeps allocations under dataDir/<name>. */
  readonly networkName?: string;
}

/** The IPAM part of the network config passed to host-local, derived from the Node's podCIDR. */
export function hostLocalConfig(o: HostLocalOptions): object {
  return {
    cniVersion: '1.0.0',
    name: o.networkName ?? 'antrea',
    type: 'antrea',
    ipam: {
      type: 'host-local',
      ranges: [[{ subnet: o.podCidr, gateway: o.gatewayIp }]],
      ...(o.dataDir ? { dataDir: o.dataDir } : {}),
    },
  };
}

/**
 * Delegates to the real host-local plugin binary (Antrea's IPAM delegator does the same through
 * libcni's invoke): env describes the call, stdin carries the config, stdout the result.
 */
export class HostLocalIpam implements Ipam {
  private readonly config: string;

  constructor(
    private readonly runner: CommandRunner,
    private readonly options: HostLocalOptions,
  ) {
    this.config = JSON.stringify(hostLocalConfig(options));
  }

  async add(containerId: string, ifName: string, netns: string): Promise<IpamResult> {
    const out = await this.invoke('ADD', containerId, ifName, netns);
    const result = JSON.parse(out) as { ips?: Array<{ address: string; gateway?: string }> };
    const ip = result.ips?.find((x) => !x.address.includes(':'));
    if (!ip) throw new AgentError('AGENT_IPAM_FAILED', `host-local returned no IPv4 address: ${out}`);
    return { address: ip.address, gateway: ip.gateway ?? this.options.gatewayIp };
  }

  async del(containerId: string, ifName: string, netns: string): Promise<void> {
    await this.invoke('DEL', containerId, ifName, netns);
  }

  async check(containerId: string, ifName: string, netns: string): Promise<void> {
    await this.invoke('CHECK', containerId, ifName, netns);
  }

  private async invoke(command: string, containerId: string, ifName: string, netns: string): Promise<string> {
    try {
      return await this.runner.run([join(this.options.binDir, 'host-local')], {
        input: this.config,
        env: {
          CNI_COMMAND: command,
          CNI_CONTAINERID: containerId,
          CNI_NETNS: netns,
          CNI_IFNAME: ifName,
          CNI_PATH: this.options.binDir,
        },
      });
    } catch (err) {
      // host-local prints its error as CNI error JSON on stdout.
      const stdout = (err as { stdout?: string }).stdout ?? '';
      let msg = (err as Error).message;
      try {
        const e = JSON.parse(stdout) as { msg?: string; details?: string };
        if (e.msg) msg = `${e.msg}${e.details ? `: ${e.details}` : ''}`;
      } catch {
        // Not JSON; keep the process error.
      }
      throw new AgentError('AGENT_IPAM_FAILED', `host-local ${command} failed: ${msg}`, { cause: err });
    }
  }
}
