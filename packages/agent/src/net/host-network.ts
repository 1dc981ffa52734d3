import { AgentError } from '../errors.js';
import type { CommandRunner } from './command-runner.js';

export interface LinkInfo {
  readonly name: string;
  readonly mac: string;
  readonly mtu: number;
  readonly up: boolean;
}

export interface RouteEntry {
  readonly dst: string;
  readonly gateway: string | undefined;
  readonly dev: string | undefined;
}

interface IpJsonLink {
  ifname: string;
  address?: string;
  mtu: number;
  flags?: string[];
  addr_info?: Array<{ family: string; local: string; prefixlen: number }>;
}

/**
 * The Node's links, addresses and routes, through `ip` (iproute2 JSON output). One job: the Node's
 * own network namespace; Pod namespaces are handled by the Pod configurator.
 */
export class HostNetwork {
  constructor(private readonly runner: CommandRunner) {}

  async link(name: string): Promise<LinkInfo | undefined> {
    let out: string;
    try {
      out = await this.runner.run(['ip', '-j', 'link', 'show', 'dev', name]);
    } catch {
      return undefined;
    }
    const [l] = JSON.parse(out) as IpJsonLink[];
    if (!l) return undefined;
    return { name: l.ifname, mac: l.address ?? '', mtu: l.mtu, up: l.flags?.includes('UP') ?? false };
  }

  async requireLink(name: string): Promise<LinkInfo> {
    const l = await this.link(name);
    if (!l) throw new AgentError('AGENT_INTERFACE_FAILED', `link ${name} not found in the Node's namespace`);
    return l;
  }

  /** Sets the link up (and its MTU), adds `cidr` as its only address of that prefix. Idempotent. */
  async configureLink(
    name: string,
    options: { mtu?: number; address?: string; mac?: string },
  ): Promise<void> {
    const batch: string[] = [];
    if (options.mac) batch.push(`link set dev ${name} address ${options.mac}`);
    if (options.mtu) batch.push(`link set dev ${name} mtu ${options.mtu}`);
    batch.push(`link set dev ${name} up`);
    if (options.address) batch.push(`addr replace ${options.address} dev ${name}`);
    await this.batch(batch);
  }

  /** The link carrying `ip` (the transport interface) and its MTU. */
  async linkWithAddress(ip: string): Promise<{ name: string; mtu: number; prefix: number } | undefined> {
    const links = JSON.parse(await this.runner.run(['ip', '-j', 'addr', 'show'])) as IpJsonLink[];
    for (const l of links) {
      const a = l.addr_info?.find((x) => x.family === 'inet' && x.local === ip);
      if (a) return { name: l.ifname, mtu: l.mtu, prefix: a.prefixlen };
    }
    return undefined;
  }

  async replaceRoute(dst: string, via: string, dev: string, onlink: boolean): Promise<void> {
    await this.runner.run([
      'ip',
      'route',
      'replace',
      dst,
      'via',
      via,
      'dev',
      dev,
      ...(onlink ? ['onlink'] : []),
    ]);
  }

  async deleteRoute(dst: string): Promise<void> {
    try {
      await this.runner.run(['ip', 'route', 'del', dst]);
    } catch {
      // Already gone: deleting is idempotent.
    }
  }

  async routes(dev: string): Promise<RouteEntry[]> {
    let out: string;
    try {
      out = await this.runner.run(['ip', '-j', 'route', 'show', 'dev', dev]);
    } catch {
      return [];
    }
    const rows = JSON.parse(out || '[]') as Array<{ dst: string; gateway?: string; dev?: string }>;
    return rows.map((r) => ({ dst: r.dst, gateway: r.gateway, dev: r.dev ?? dev }));
  }

  /** Pods reach other Nodes and the outside through the Node's routing. */
  async enableIpv4Forwarding(): Promise<void> {
    await this.runner.run(['sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
  }

  /** Several `ip` commands in one process (`ip -batch`), which matters when Pods start in bursts. */
  async batch(commands: readonly string[]): Promise<void> {
    if (commands.length === 0) return;
    await this.runner.run(['ip', '-batch', '-'], { input: `${commands.join('\n')}\n` });
  }
}
