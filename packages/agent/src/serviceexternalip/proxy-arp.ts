import type { CommandRunner } from '../net/command-runner.js';

/**
 * Service external IPs answered on the Node's transport interface by proxy ARP entries
 * (`ip neigh ... proxy`). The IP is not a local address: proxyAll routes each Service external IP
 * to antrea-gw0, and a local address would make the kernel deliver the packets to itself instead.
 * With a proxy entry the Node answers ARP for the IP on the underlay (the kernel does so for an IP
 * it forwards out of another interface) and forwards the packets to AntreaProxy in OVS. Proxy
 * entries on the transport interface are this module's alone, so what is there is what it put.
 */
export class ProxyArpEntries {
  constructor(
    private readonly runner: CommandRunner,
    readonly device: string,
  ) {}

  async list(): Promise<Set<string>> {
    const out = await this.runner.run(['ip', '-4', 'neigh', 'show', 'proxy', 'dev', this.device]);
    return new Set([...out.matchAll(/^(\d+\.\d+\.\d+\.\d+)/gm)].map((m) => m[1] ?? ''));
  }

  async add(ip: string): Promise<void> {
    await this.runner.run(['ip', 'neigh', 'replace', 'proxy', ip, 'dev', this.device]);
  }

  /**
   * The kernel delays each proxy ARP answer by a random part of `proxy_delay` (0.8 s by default);
   * Antrea's own responder answers at once, and so does this Node once the delay is 0.
   */
  async answerAtOnce(): Promise<void> {
    await this.runner.run(['sysctl', '-qw', `net.ipv4.neigh.${this.device}.proxy_delay=0`]);
  }

  async remove(ip: string): Promise<void> {
    await this.runner.run(['ip', 'neigh', 'del', 'proxy', ip, 'dev', this.device]);
  }

  /** Makes the entries exactly `wanted`; returns what was added and removed. */
  async reconcile(wanted: ReadonlySet<string>): Promise<{ added: string[]; removed: string[] }> {
    const present = await this.list();
    const removed = [...present].filter((ip) => !wanted.has(ip));
    const added = [...wanted].filter((ip) => !present.has(ip));
    for (const ip of removed) await this.remove(ip);
    // Only a delay: without sysctl the entries still answer, a little later.
    if (added.length > 0) await this.answerAtOnce().catch(() => undefined);
    for (const ip of added) await this.add(ip);
    return { added, removed };
  }
}
