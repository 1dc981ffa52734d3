import type { Logger } from 'pino';
import type { HostNetwork } from '../net/host-network.js';
import { VIRTUAL_NODEPORT_DNAT_IP, VIRTUAL_SERVICE_IP } from '../openflow/features/service.js';
import { GLOBAL_VIRTUAL_MAC } from '../openflow/features/tunnel.js';

/** `ip route` prints a /32 without its length. */
const hostRoute = (dst: string): string => (dst.endsWith('/32') ? dst.slice(0, -3) : dst);

/**
 * proxyAll's routes in the Node (Antrea route_linux.go): the virtual NodePort IP, the Service CIDR
 * (or each ClusterIP) and every external IP go via the virtual Service IP on antrea-gw0, whose
 * neighbour entry is the global virtual MAC, so the Node's packets to them enter OVS, where the
 * service flows DNAT them. Routes via the virtual IP are this module's alone: any other is stale.
 */
export class ServiceRoutes {
  private readonly log: Logger;

  constructor(
    private readonly host: HostNetwork,
    private readonly gatewayName: string,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'service-routes' });
  }

  /** Makes exactly `destinations` (plus the virtual NodePort IP) routed via the virtual Service IP. */
  async sync(destinations: Iterable<string>): Promise<void> {
    const wanted = new Set([VIRTUAL_NODEPORT_DNAT_IP, ...[...destinations].map(hostRoute)]);
    const present = new Set(await this.ours());
    const commands = [
      `neigh replace ${VIRTUAL_SERVICE_IP} lladdr ${GLOBAL_VIRTUAL_MAC} dev ${this.gatewayName} nud permanent`,
      ...[...wanted]
        .filter((d) => !present.has(d))
        .map((d) => `route replace ${d} via ${VIRTUAL_SERVICE_IP} dev ${this.gatewayName} onlink`),
      ...[...present].filter((d) => !wanted.has(d)).map((d) => `route del ${d} dev ${this.gatewayName}`),
    ];
    await this.host.batch(commands);
    this.log.debug({ routes: wanted.size }, 'Service routes in place');
  }

  /** Removes every route via the virtual Service IP and its neighbour entry (proxyAll off). */
  async cleanup(): Promise<void> {
    const present = await this.ours();
    if (present.length === 0) return;
    await this.host.batch([
      ...present.map((d) => `route del ${d} dev ${this.gatewayName}`),
      `neigh del ${VIRTUAL_SERVICE_IP} dev ${this.gatewayName}`,
    ]);
    this.log.info({ routes: present.length }, 'Service routes removed');
  }

  private async ours(): Promise<string[]> {
    const routes = await this.host.routes(this.gatewayName);
    return routes.filter((r) => r.gateway === VIRTUAL_SERVICE_IP).map((r) => r.dst);
  }
}
