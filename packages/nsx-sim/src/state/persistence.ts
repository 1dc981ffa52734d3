import { randomBytes } from 'node:crypto';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { StateFileError } from '../errors.js';
import { emptyState, type SimState } from './types.js';

/** Where the simulator keeps its state between restarts. */
export interface StatePersistence {
  load(): Promise<SimState | undefined>;
  save(state: SimState): Promise<void>;
}

/** No persistence (tests that do not care). */
export const memoryPersistence: StatePersistence = {
  load: async () => undefined,
  save: async () => {},
};

/**
 * JSON file persistence. `save` writes a temp file in the same directory, fsyncs it and renames it over
 * the target, so a crash leaves either the old or the new file, never a torn one.
 */
export class JsonFilePersistence implements StatePersistence {
  constructor(readonly file: string) {}

  async load(): Promise<SimState | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StateFileError(`cannot read state file ${this.file}`, { cause: err });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new StateFileError(`state file ${this.file} is not valid JSON`, { cause: err });
    }
    if (typeof parsed !== 'object' || parsed === null || (parsed as { version?: unknown }).version !== 1) {
      throw new StateFileError(`state file ${this.file} has an unknown format (want version 1)`);
    }
    // Fill sections added after the file was written.
    return { ...emptyState(), ...(parsed as Partial<SimState>) } as SimState;
  }

  async save(state: SimState): Promise<void> {
    const tmp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    const data = JSON.stringify(state);
    try {
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(data, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, this.file);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw new StateFileError(`cannot write state file ${this.file}`, { cause: err });
    }
  }
}
