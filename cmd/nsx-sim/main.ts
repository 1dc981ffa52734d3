// nsx-sim: the NSX Manager simulator as a process. A composition root only: it reads flags, builds
// the store, TLS material and server from @antrea-ts/nsx-sim, and links SIGTERM/SIGINT to one AbortController.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JsonFilePersistence,
  loadOrGenerateTls,
  memoryPersistence,
  NsxSimServer,
  SimStore,
} from '@antrea-ts/nsx-sim';
import { pino } from 'pino';
import { loadOptions } from './options.js';

async function main(): Promise<void> {
  let options: ReturnType<typeof loadOptions>;
  try {
    options = loadOptions(process.argv);
  } catch (err) {
    // commander already printed usage/help or the error.
    const code = (err as { exitCode?: number }).exitCode;
    process.exitCode = typeof code === 'number' ? code : 2;
    return;
  }
  const logger = pino({ level: options.logLevel, base: { app: 'nsx-sim' } });
  const persistence = options.stateFile ? new JsonFilePersistence(options.stateFile) : memoryPersistence;
  const store = new SimStore(persistence, logger);

  let tls: { key: string; cert: string } | undefined;
  if (options.tls) {
    const dir = options.tlsDir ?? (await mkdtemp(join(tmpdir(), 'nsx-sim-tls-')));
    const generated = await loadOrGenerateTls(dir, [...options.tlsHostnames], ['127.0.0.1', '::1']);
    tls = { key: generated.key, cert: generated.cert };
    logger.info(
      { caFile: join(dir, 'ca.crt'), reused: generated.reused },
      'TLS ready; clients should trust ca.crt',
    );
  }

  const server = new NsxSimServer({
    logger,
    store,
    host: options.host,
    port: options.port,
    auth: options.auth,
    seed: options.seed,
    ...(tls ? { tls } : {}),
  });
  const abort = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => abort.abort());
  await server.start(abort.signal);
  await new Promise<void>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  await server.stop();
}

main().catch((err: unknown) => {
  pino({ base: { app: 'nsx-sim' } }).fatal({ err }, 'nsx-sim failed');
  process.exitCode = 1;
});
