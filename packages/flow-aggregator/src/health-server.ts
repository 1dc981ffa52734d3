import http from 'node:http';
import type { Logger } from 'pino';

export interface HealthServerOptions {
  readonly host: string;
  /** apiServer.apiPort (10348 in Antrea); 0 picks a free port. */
  readonly port: number;
  readonly ready: () => boolean;
  /** JSON for `/stats`. */
  readonly stats: () => unknown;
  readonly logger: Logger;
}

/**
 * `/livez` (the process answers), `/readyz` (the collecting process listens and the exporters
 * started) and `/stats`, over plain HTTP: Antrea serves these on an HTTPS API server with
 * Kubernetes authentication, which this process does not have.
 */
export class HealthServer {
  private server: http.Server | undefined;
  private readonly log: Logger;

  constructor(private readonly o: HealthServerOptions) {
    this.log = o.logger.child({ component: 'health-server' });
  }

  async start(): Promise<number> {
    const server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const reply = (status: number, body: string, type = 'text/plain'): void => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      };
      if (path === '/livez') reply(200, 'ok');
      else if (path === '/readyz') reply(this.o.ready() ? 200 : 503, this.o.ready() ? 'ok' : 'not ready');
      else if (path === '/stats') reply(200, JSON.stringify(this.o.stats()), 'application/json');
      else reply(404, 'not found');
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.o.port, this.o.host, () => resolve());
    });
    const port = (server.address() as { port: number }).port;
    this.log.info({ port }, 'health endpoints listening');
    return port;
  }

  /** Idempotent. */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
