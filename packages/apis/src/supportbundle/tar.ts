// A tar.gz writer for support bundles: POSIX ustar headers (names up to 255 bytes through the
// prefix field) over regular files only, then gzip. Pure over bytes: no file system, no clock.
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  /** Path inside the archive, "/"-separated, relative (no leading "/", no ".."). */
  readonly name: string;
  readonly data: Uint8Array | string;
  /** Seconds since the epoch. */
  readonly mtime: number;
  /** Unix permission bits; default 0o644. */
  readonly mode?: number;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  // width includes the terminating NUL.
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** Splits a long name into ustar's prefix (<=155) and name (<=100) at a "/". */
function splitName(name: string): { prefix: string; base: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  for (let i = name.lastIndexOf('/'); i > 0; i = name.lastIndexOf('/', i - 1)) {
    const prefix = name.slice(0, i);
    const base = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100) return { prefix, base };
  }
  throw new RangeError(`tar entry name too long for ustar: ${name}`);
}

function header(entry: TarEntry, size: number): Buffer {
  if (entry.name.startsWith('/') || entry.name.split('/').includes('..')) {
    throw new RangeError(`tar entry name must be relative: ${entry.name}`);
  }
  const h = Buffer.alloc(BLOCK);
  const { prefix, base } = splitName(entry.name);
  h.write(base, 0, 100, 'utf8');
  h.write(octal(entry.mode ?? 0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii'); // uid
  h.write(octal(0, 8), 116, 'ascii'); // gid
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.max(0, Math.floor(entry.mtime)), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // checksum counts as spaces while summing
  h.write('0', 156, 'ascii'); // regular file
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write('root', 265, 'ascii');
  h.write('root', 297, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** The uncompressed tar stream of `entries`, in order, with the two zero blocks at the end. */
export function tarArchive(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : Buffer.from(e.data);
    parts.push(header(e, data.length), data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/** `tarArchive` gzipped: what `tar xzf` reads. */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  return gzipSync(tarArchive(entries));
}
