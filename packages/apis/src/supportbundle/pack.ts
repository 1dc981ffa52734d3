import { createHash } from 'node:crypto';
import type { BundleCollector, CollectedBundle } from './bundle-state.js';
import { Redactor } from './redact.js';
import { tarGz } from './tar.js';

/** One file of a bundle, before redaction. */
export interface BundleFile {
  readonly name: string;
  readonly content: string;
}

/**
 * Redacts every file, packs them under one top directory-less tar.gz and sums it. Every file goes
 * through the redactor: no collector can put an unfiltered byte in the archive.
 */
export function packBundle(files: readonly BundleFile[], redactor: Redactor, now: Date): CollectedBundle {
  const mtime = Math.floor(now.getTime() / 1000);
  const archive = tarGz(files.map((f) => ({ name: f.name, data: redactor.redact(f.content), mtime })));
  return { archive, sum: createHash('sha256').update(archive).digest('hex') };
}

/**
 * A component's BundleCollector from its file collection: every file is redacted with the
 * component's known secrets (asked for at each collection: tokens rotate) before packing.
 */
export function redactingCollector(
  collect: (since: string | undefined) => Promise<BundleFile[]> | BundleFile[],
  secrets: () => Promise<string[]>,
  now: () => Date,
): BundleCollector {
  return async (since) => {
    const files = await collect(since);
    return packBundle(files, new Redactor({ secrets: await secrets() }), now());
  };
}
