import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';
import { cidrContains, parseCidr } from '../net/ipv4.js';
import type { NodePortIptables } from './nodeport-iptables.js';
import type { NodePortKey, ServiceHostListener, ServiceHostState } from './service-host-state.js';
import type { ServiceRoutes } from './service-routes.js';

/**
 * The Node addresses NodePorts answer on (Antrea's nodePortAddresses): the IPv4 addresses of the
 * Node's interfaces inside `cidrs`; with none, all of them but loopback's and the gateway's.
 */
export async function nodePortAddresses(
  runner: CommandRunner,
  gatewayName: string,
  cidrs: readonly string[],
): Promise<string[]> {
  const links = JSON.parse(await runner.run(['ip', '-j', '-4', 'addr', 'show'])) as Array<{
    ifname: string;
    addr_info?: Array<{ family: string; local: string }>;
  }>;
  const ranges = cidrs.map(parseCidr);
  const out = new Set<string>();
  for (const link of links) {
    for (const a of link.addr_info ?? []) {
      if (a.family !== 'inet') continue;
      const wanted =
        ranges.length > 0
          ? ranges.some((r) => cidrContains(r, a.local))
          : link.ifname !== 'lo' && link.ifname !== gatewayName;
      if (wanted) out.add(a.local);
    }
  }
  return [...out].sort();
}

export interface ProxyAllHostOptions {
  readonly iptables: Pick<NodePortIptables, 'sync'>;
  readonly routes: Pick<ServiceRoutes, 'sync'>;
  /** From nodePortAddresses(). */
  readonly addresses: readonly string[];
  /** Antrea's serviceCIDR: routed whole; ClusterIPs inside it get no route of their own. */
  readonly serviceCidr?: string;
  readonly logger: Logger;
  /** Delay before retrying a failed write (default 1 s). */
  readonly retryMs?: number;
}

/** What of one Service's host state this module writes (its NodePorts and VIPs), comparable. */
const hostKey = (s: ServiceHostState | undefined): string =>
  s ? `${s.nodePorts.map((p) => `${p.protocol}:${p.port}`).join(',')} ${s.vips.join(',')}` : '';

/**
 * proxyAll's Node side: follows the proxier's Services and keeps the NodePort DNAT rules and the
 * Service routes in step, one write at a time with the latest state, skipping writes that would
 * change nothing (endpoint churn touches neither), retrying failures.
 */
export class ProxyAllHost implements ServiceHostListener {
  private readonly services = new Map<string, ServiceHostState>();
  private readonly log: Logger;
  private written: { ports: string; routes: string } | undefined;
  private running: Promise<void> | undefined;
  private dirty = false;
  /** servicesChanged was called once: the Node state has been asked for at least once. */
  private told = false;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly o: ProxyAllHostOptions) {
    this.log = o.logger.child({ component: 'proxy-all-host' });
  }

  servicesChanged(changes: ReadonlyMap<string, ServiceHostState | undefined>): void {
    let changed = false;
    for (const [key, state] of changes) {
      // Endpoint churn leaves NodePorts and VIPs as they were: no rebuild of the whole Node state.
      if (hostKey(this.services.get(key)) === hostKey(state)) continue;
      changed = true;
      if (state) this.services.set(key, state);
      else this.services.delete(key);
    }
    // The first call is written even when empty: it replaces what a previous run left.
    if (!changed && this.told) return;
    this.told = true;
    this.dirty = true;
    this.kick();
  }

  /** Resolves once the latest state is written (or its write failed and waits for a retry). */
  idle(): Promise<void> {
    if (!this.dirty && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.running;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private kick(): void {
    if (this.running || this.stopped) return;
    this.running = this.writeLatest().finally(() => {
      this.running = undefined;
      if (this.dirty && !this.retry) this.kick();
      else for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  private async writeLatest(): Promise<void> {
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      const ports = this.nodePorts();
      const routes = this.routeDestinations();
      const key = { ports: JSON.stringify(ports), routes: JSON.stringify(routes) };
      try {
        if (key.ports !== this.written?.ports) await this.o.iptables.sync(this.o.addresses, ports);
        if (key.routes !== this.written?.routes) await this.o.routes.sync(routes);
        this.written = key;
      } catch (err) {
        this.written = undefined;
        this.dirty = true;
        this.log.error({ err }, 'writing NodePort rules or Service routes failed; retrying');
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.kick();
        }, this.o.retryMs ?? 1000);
        this.retry.unref();
        return;
      }
    }
  }

  private nodePorts(): NodePortKey[] {
    const all = new Map<string, NodePortKey>();
    for (const s of this.services.values())
      for (const p of s.nodePorts) all.set(`${p.protocol}:${p.port}`, p);
    return [...all.values()].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol));
  }

  private routeDestinations(): string[] {
    const cidr = this.o.serviceCidr ? parseCidr(this.o.serviceCidr) : undefined;
    const out = new Set<string>(this.o.serviceCidr ? [this.o.serviceCidr] : []);
    for (const s of this.services.values()) {
      for (const ip of s.vips) if (!cidr || !cidrContains(cidr, ip)) out.add(ip);
    }
    return [...out].sort();
  }
}
