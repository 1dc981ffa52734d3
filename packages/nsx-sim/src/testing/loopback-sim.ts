import { pino } from 'pino';
import { NsxSimServer } from '../server.js';
import { JsonFilePersistence } from '../state/persistence.js';
import { SimStore } from '../state/sim-store.js';

/**
 * For tests: the simulator listening on loopback (plain HTTP, no auth), its state in a file, so
 * `stop()` then `start()` is an NSX Manager outage that ends on the same port with the same state.
 */
export class LoopbackSim {
  private server: NsxSimServer | undefined;
  url = '';
  port = 0;

  constructor(
    private readonly stateFile: string,
    private readonly host = '127.0.0.1',
  ) {}

  get running(): boolean {
    return this.server !== undefined;
  }

  async start(): Promise<void> {
    const logger = pino({ level: 'silent' });
    const store = new SimStore(new JsonFilePersistence(this.stateFile), logger);
    this.server = new NsxSimServer({ logger, store, host: this.host, port: this.port, auth: false });
    this.url = await this.server.start();
    this.port = Number(new URL(this.url).port);
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }

  // biome-ignore lint/suspicious/noExplicitAny: tests read NSX JSON directly
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  /** `call`, throwing on an error status. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read NSX JSON directly
  async must(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
}
