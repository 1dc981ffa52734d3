#!/usr/bin/env node
// Writes build/crds/crd-*.yaml from the schemas in packages/apis/src/crd/schemas (built output).
// Usage: npx tsc -b packages/apis && node hack/gen-crds.mjs [--check]
// --check writes nothing and exits 1 if build/crds differs from what the schemas produce.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Imported dynamically so a missing build gets a hint instead of a bare ERR_MODULE_NOT_FOUND.
const { renderCrdFiles } = await import('../packages/apis/dist/crd/render.js').catch((err) => {
  process.stderr.write(
    `cannot load packages/apis/dist (${err.code ?? err}); run: npx tsc -b packages/apis\n`,
  );
  process.exit(1);
});

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'crds');
const check = process.argv.includes('--check');
const isGenerated = (name) => name.startsWith('crd-') && name.endsWith('.yaml');

mkdirSync(outDir, { recursive: true });
const wanted = new Map(renderCrdFiles().map((f) => [f.name, f.content]));
const present = readdirSync(outDir).filter(isGenerated);
const problems = [];

for (const name of present) {
  if (!wanted.has(name)) {
    problems.push(`stale ${name}`);
    if (!check) rmSync(join(outDir, name));
  }
}
for (const [name, content] of wanted) {
  const path = join(outDir, name);
  const current = present.includes(name) ? readFileSync(path, 'utf8') : undefined;
  if (current === content) continue;
  problems.push(current === undefined ? `missing ${name}` : `outdated ${name}`);
  if (!check) writeFileSync(path, content);
}

if (check && problems.length > 0) {
  process.stderr.write(`build/crds is out of date (${problems.join(', ')}); run: node hack/gen-crds.mjs\n`);
  process.exit(1);
}
process.stdout.write(
  `${check ? 'build/crds is up to date' : `build/crds: ${wanted.size} CRDs (${problems.length} changed)`}\n`,
);
