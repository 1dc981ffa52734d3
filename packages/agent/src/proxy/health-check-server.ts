import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { ServiceHostListener, ServiceHostState } from './service-host-state.js';

interface Served {
  readonly port: number;
  readonly server: Server;
  /** `<namespace>/<name>` -> its local endpoint count (several Services may share a port, as in kube-proxy). */
  readonly services: Map<string, number>;
}

/** kube-proxy's answer body on a healthCheckNodePort. */
export function healthCheckBody(svcKey: string, localEndpoints: number): string {
  const [namespace, name] = svcKey.split('/');
  return JSON.stringify({ service: { namespace, name }, localEndpoints, serviceProxyHealthy: true });
}

/**
 * The healthCheckNodePort of each externalTrafficPolicy Local LoadBalancer Service (kube-proxy's
 * and Antrea's service health server): HTTP on every address of the Node, 200 with the count of this
 * Node's endpoints when it has some, 503 otherwise, so the load balancer sends traffic only to
 * Nodes that can serve it without another hop. The process must run in the Node's netns.
 */
export class HealthCheckServer implements ServiceHostListener {
  private readonly byPort = new Map<number, Served>();
  private readonly portOf = new Map<string, number>();
  private readonly log: Logger;
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    logger: Logger,
    private readonly host = '0.0.0.0',
  ) {
    this.log = logger.child({ component: 'service-health-check' });
  }

  servicesChanged(changes: ReadonlyMap<string, ServiceHostState | undefined>): void {
    for (const [svcKey, state] of changes) {
      const before = this.portOf.get(svcKey);
      const hc = state?.healthCheck;
      if (before !== undefined && before !== hc?.port) this.forget(svcKey, before);
      if (!hc) continue;
      this.portOf.set(svcKey, hc.port);
      const served = this.byPort.get(hc.port) ?? this.listen(hc.port);
      served.services.set(svcKey, hc.localEndpoints);
    }
  }

  /** Resolves once every server started or stopped so far is listening or closed. */
  idle(): Promise<void> {
    return this.pending.then(() => undefined);
  }

  async stop(): Promise<void> {
    const servers = [...this.byPort.values()].map((s) => s.server);
    this.byPort.clear();
    this.portOf.clear();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }

  private forget(svcKey: string, port: number): void {
    this.portOf.delete(svcKey);
    const served = this.byPort.get(port);
    served?.services.delete(svcKey);
    if (!served || served.services.size > 0) return;
    this.byPort.delete(port);
    this.after(new Promise((r) => served.server.close(r)));
  }

  private listen(port: number): Served {
    const services = new Map<string, number>();
    const server = createServer((_req, res) => {
      // The first Service on the port speaks for it; kube-proxy does the same with shared ports.
      const [svcKey, count] = [...services][0] ?? ['', 0];
      res.writeHead(count > 0 ? 200 : 503, {
        'Content-Type': 'application/json',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(healthCheckBody(svcKey, count));
    });
    server.on('error', (err) => this.log.error({ err, port }, 'healthCheckNodePort not served'));
    const served = { port, server, services };
    this.byPort.set(port, served);
    this.after(new Promise<void>((r) => server.listen(port, this.host, () => r()).once('error', () => r())));
    return served;
  }

  private after(p: Promise<unknown>): void {
    this.pending = Promise.all([this.pending, p]);
  }
}
