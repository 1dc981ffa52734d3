import { gzipSync } from 'node:zlib';

/** Writes a gzipped ustar archive of small in-memory files (support bundles). */
export function tarGz(files: readonly { name: string; data: Buffer | string }[], mtimeSec: number): Buffer {
  const blocks: Buffer[] = [];
  for (const f of files) {
    const data = typeof f.data === 'string' ? Buffer.from(f.data) : f.data;
    const h = Buffer.alloc(512);
    const put = (s: string, off: number, len: number) => h.write(s.slice(0, len), off, len, 'utf8');
    const oct = (n: number, off: number, len: number) =>
      put(`${n.toString(8).padStart(len - 1, '0')}\0`, off, len);
    put(f.name, 0, 100);
    oct(0o644, 100, 8);
    oct(0, 108, 8);
    oct(0, 116, 8);
    oct(data.length, 124, 12);
    oct(Math.floor(mtimeSec), 136, 12);
    h.fill(' ', 148, 156);
    put('0', 156, 1);
    put('ustar\0', 257, 6);
    put('00', 263, 2);
    let sum = 0;
    for (const b of h) sum += b;
    put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
    blocks.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
