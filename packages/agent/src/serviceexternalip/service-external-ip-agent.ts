import { SyncLoop } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { CommandRunner } from '../net/command-runner.js';
import { ProxyArpEntries } from './proxy-arp.js';
import type { ServiceExternalIPSource } from './service-external-ip-source.js';
import { placeServiceIps } from './service-ip-placement.js';

export interface ServiceExternalIPAgentOptions {
  nodeName: string;
  source: ServiceExternalIPSource;
  /** Runs ip in the Node's network namespace. */
  runner: CommandRunner;
  transportInterface: string;
  logger: Logger;
  retryMs?: number;
}

/**
 * antrea-agent's ServiceExternalIP side (Antrea's pkg/agent/controller/serviceexternalip). Every
 * agent computes the same placement of the Services' external IPs (placeServiceIps: the pool's
 * Ready Nodes, the Egress hash ring, Local Services on Nodes with endpoints); this Node answers ARP
 * on its transport interface for the IPs placed here (ProxyArpEntries) and names itself in their
 * ingress hostname. AntreaProxy (proxyAll) routes and load-balances them. A Node turning NotReady
 * leaves the ring, so the others take its IPs over. Syncs are whole (every sync also removes what
 * a previous run left), serialized and coalesced.
 */
export class ServiceExternalIPAgent {
  readonly #o: ServiceExternalIPAgentOptions;
  readonly #log: Logger;
  readonly #entries: ProxyArpEntries;
  readonly #loop: SyncLoop;
  #started = false;

  constructor(opts: ServiceExternalIPAgentOptions) {
    this.#o = opts;
    this.#log = opts.logger.child({ component: 'service-external-ip-agent' });
    this.#entries = new ProxyArpEntries(opts.runner, opts.transportInterface);
    this.#loop = new SyncLoop({
      sync: () => this.#sync(),
      onError: (err) => this.#log.warn({ err }, 'ServiceExternalIP sync failed; retrying'),
      ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
    });
  }

  /** Lists and watches, then syncs in the background. */
  async start(signal?: AbortSignal): Promise<void> {
    this.#started = true;
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await this.#o.source.start(() => this.#loop.schedule());
    this.#loop.start();
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    await this.#o.source.stop();
    await this.#loop.stop();
  }

  /** Settles when no sync is running or queued (tests). */
  idle(): Promise<void> {
    return this.#loop.idle();
  }

  async #sync(): Promise<void> {
    const src = this.#o.source;
    const placements = placeServiceIps({
      services: src.services(),
      pool: (name) => src.pool(name),
      nodes: src.nodes().filter((n) => n.ready),
      endpointNodes: (svc) => src.endpointNodes(svc),
    });
    const local = placements.filter((p) => p.node === this.#o.nodeName);
    const { added, removed } = await this.#entries.reconcile(new Set(local.map((p) => p.ip)));
    if (removed.length > 0) this.#log.info({ ips: removed }, 'released Service external IPs');
    if (added.length > 0) this.#log.info({ ips: added }, 'took Service external IPs');
    for (const p of local) {
      if (p.service.status?.loadBalancer?.ingress?.[0]?.hostname === this.#o.nodeName) continue;
      await src.setIngressHostname(p.service, this.#o.nodeName);
    }
  }
}

/** ServiceExternalIP off: the proxy ARP entries a run with it on left go. */
export async function removeServiceExternalIPState(
  runner: CommandRunner,
  transportInterface: string,
  logger: Logger,
): Promise<void> {
  const { removed } = await new ProxyArpEntries(runner, transportInterface).reconcile(new Set());
  if (removed.length > 0) {
    logger
      .child({ component: 'service-external-ip-agent' })
      .info({ ips: removed }, 'ServiceExternalIP is off: removed the Service external IPs of a previous run');
  }
}
