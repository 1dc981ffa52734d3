// The adapter's own health endpoint, the place a kubelet probe or an operator looks when NSX cannot
// be told (NSX unreachable is exactly when the heartbeat does not arrive). The real adapters serve
// /livez on 16664 (MP) and 16665 (CCP) over HTTPS; this one serves both adapters on one plain-HTTP
// port, meant for localhost.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ComponentHealth } from './health.js';

export interface AdapterHealthSources {
  mp: () => ComponentHealth;
  ccp: () => ComponentHealth;
}

/** What GET /healthz answers. */
export interface AdapterHealthReport {
  /** The worse of the two adapters (DOWN > DEGRADED > UNKNOWN > UP). */
  status: ComponentHealth['status'];
  mp: ComponentHealth;
  ccp: ComponentHealth;
}

const RANK: Record<ComponentHealth['status'], number> = { UP: 0, UNKNOWN: 1, DEGRADED: 2, DOWN: 3 };

export function adapterHealthReport(sources: AdapterHealthSources): AdapterHealthReport {
  const mp = sources.mp();
  const ccp = sources.ccp();
  return { status: RANK[mp.status] >= RANK[ccp.status] ? mp.status : ccp.status, mp, ccp };
}

/**
 * GET /livez: 200 while the process serves (never fails on an NSX outage: restarting the adapter
 * would not bring NSX back, and the adapter keeps enforcement as it is). GET /healthz: 200 with
 * an AdapterHealthReport.
 */
export class HealthServer {
  private readonly server: Server;
  private readonly log: Logger;

  constructor(sources: AdapterHealthSources, logger: Logger) {
    this.log = logger.child({ component: 'health-server' });
    this.server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'GET' || (path !== '/livez' && path !== '/healthz')) {
        res.writeHead(404).end();
        return;
      }
      if (path === '/livez') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(adapterHealthReport(sources)));
    });
  }

  /** Listens; port 0 picks a free one. Returns the bound address. */
  async start(host: string, port: number): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    this.log.info({ address: address.address, port: address.port }, 'health endpoint listening');
    return address;
  }

  stop(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
