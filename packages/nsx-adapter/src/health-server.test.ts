import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ComponentHealth } from './health.js';
import { adapterHealthReport, HealthServer } from './health-server.js';

const up: ComponentHealth = { status: 'UP', conditions: [] };
const degraded: ComponentHealth = {
  status: 'DEGRADED',
  conditions: [{ type: 'NSXConnectionUp', status: 'FALSE', reason: 'NSX_UNREACHABLE' }],
};

describe('adapterHealthReport', () => {
  it('is as bad as the worse adapter', () => {
    expect(adapterHealthReport({ mp: () => up, ccp: () => up }).status).toBe('UP');
    expect(adapterHealthReport({ mp: () => up, ccp: () => degraded }).status).toBe('DEGRADED');
    expect(
      adapterHealthReport({ mp: () => ({ status: 'UNKNOWN', conditions: [] }), ccp: () => up }).status,
    ).toBe('UNKNOWN');
    expect(
      adapterHealthReport({ mp: () => degraded, ccp: () => ({ status: 'DOWN', conditions: [] }) }).status,
    ).toBe('DOWN');
  });
});

describe('HealthServer', () => {
  let server: HealthServer | undefined;
  afterEach(async () => server?.stop());

  it('serves /livez and the current /healthz on loopback; anything else is 404', async () => {
    let ccp = up;
    server = new HealthServer({ mp: () => up, ccp: () => ccp }, pino({ level: 'silent' }));
    const { port } = await server.start('127.0.0.1', 0);
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/livez`)).text()).toBe('ok');
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'UP', mp: up, ccp: up });
    ccp = degraded;
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'DEGRADED', ccp: degraded });
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    await server.stop();
    await server.stop();
    await expect(fetch(`${base}/livez`)).rejects.toThrow();
  });
});
