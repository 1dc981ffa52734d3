import type { NplProtocol } from './model.js';
import type { HeldPort, PortOpener } from './port-table.js';

/** A PortOpener over a set of ports the "host" already uses; records what is held. */
export class FakePortOpener implements PortOpener {
  readonly busy = new Set<string>();
  readonly held = new Set<string>();

  open(port: number, protocol: NplProtocol): Promise<HeldPort> {
    const key = `${port}/${protocol}`;
    if (this.busy.has(key) || this.held.has(key)) return Promise.reject(new Error(`${key} in use`));
    this.held.add(key);
    return Promise.resolve({
      close: async () => {
        this.held.delete(key);
      },
    });
  }
}
