import type { FastifyInstance, InjectOptions } from 'fastify';
import { pino } from 'pino';
import { ManualClock, SequentialIds } from './clock.js';
import type { AuthOptions, ClientCertificateSource } from './http/auth.js';
import { buildNsxSimApp } from './server.js';
import { memoryPersistence, type StatePersistence } from './state/persistence.js';
import { SimStore } from './state/sim-store.js';

/** Test-only: an in-process simulator driven with fastify.inject(). Not exported from index.ts. */
export interface TestSim {
  app: FastifyInstance;
  store: SimStore;
  clock: ManualClock;
  call(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{
    status: number;
    // biome-ignore lint/suspicious/noExplicitAny: tests read response fields directly
    body: any;
    raw: string;
  }>;
}

export async function startTestSim(
  opts: {
    persistence?: StatePersistence;
    clock?: ManualClock;
    auth?: AuthOptions | false;
    clientCertificate?: ClientCertificateSource;
    seed?: boolean;
  } = {},
): Promise<TestSim> {
  const logger = pino({ level: 'silent' });
  const store = new SimStore(opts.persistence ?? memoryPersistence, logger);
  await store.load();
  const clock = opts.clock ?? new ManualClock();
  const app = await buildNsxSimApp({
    logger,
    store,
    clock,
    ids: new SequentialIds(),
    auth: opts.auth ?? false,
    ...(opts.clientCertificate ? { clientCertificate: opts.clientCertificate } : {}),
    seed: opts.seed ?? false,
  });
  return {
    app,
    store,
    clock,
    async call(method, url, body, headers) {
      const res = await app.inject({
        method,
        url,
        ...(body !== undefined ? { payload: body as InjectOptions['payload'] } : {}),
        ...(headers ? { headers } : {}),
      });
      let parsed: unknown;
      try {
        parsed = res.body === '' ? undefined : JSON.parse(res.body);
      } catch {
        parsed = undefined;
      }
      return { status: res.statusCode, body: parsed, raw: res.body };
    },
  };
}

export const P = '/policy/api/v1';
export const G = `${P}/infra/domains/default/groups`;
export const SP = `${P}/infra/domains/default/security-policies`;
export const CCP = `${P}/infra/sites/default/enforcement-points/default/cluster-control-planes`;
