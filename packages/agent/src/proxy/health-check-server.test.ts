import { createServer } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthCheckServer } from './health-check-server.js';
import type { ServiceHostState } from './service-host-state.js';

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const state = (port: number, localEndpoints: number): ServiceHostState => ({
  nodePorts: [],
  vips: [],
  healthCheck: { port, localEndpoints },
});

describe('HealthCheckServer', () => {
  let server: HealthCheckServer | undefined;
  afterEach(async () => server?.stop());

  it('answers 200 with the local endpoint count, 503 without, and stops serving when the Service goes', async () => {
    server = new HealthCheckServer(pino({ level: 'silent' }), '127.0.0.1');
    const port = await freePort();
    server.servicesChanged(new Map([['ns/web', state(port, 2)]]));
    await server.idle();
    const url = `http://127.0.0.1:${port}/healthz`;
    let res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      service: { namespace: 'ns', name: 'web' },
      localEndpoints: 2,
      serviceProxyHealthy: true,
    });
    server.servicesChanged(new Map([['ns/web', state(port, 0)]]));
    res = await fetch(url);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ localEndpoints: 0 });
    server.servicesChanged(new Map([['ns/web', undefined]]));
    await server.idle();
    await expect(fetch(url)).rejects.toThrow();
  });
});
