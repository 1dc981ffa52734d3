import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { HealthServer } from './health-server.js';

describe('HealthServer', () => {
  it('answers /livez always, /readyz by readiness, /stats with the counters', async () => {
    let ready = false;
    const server = new HealthServer({
      host: '127.0.0.1',
      port: 0,
      ready: () => ready,
      stats: () => ({ flows: 3 }),
      logger: pino({ level: 'silent' }),
    });
    const port = await server.start();
    try {
      const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);
      expect((await get('/livez')).status).toBe(200);
      expect((await get('/readyz')).status).toBe(503);
      ready = true;
      expect((await get('/readyz')).status).toBe(200);
      expect(await (await get('/stats')).json()).toEqual({ flows: 3 });
      expect((await get('/nope')).status).toBe(404);
    } finally {
      await server.stop();
      await server.stop();
    }
  });
});
