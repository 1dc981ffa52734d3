import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { antreaCrds } from './crds.js';
import { CRD_FILE_HEADER, crdFileName, renderCrd, renderCrdFiles } from './render.js';

const crdDir = fileURLToPath(new URL('../../../../build/crds/', import.meta.url));

describe('build/crds', () => {
  it('holds exactly what the schemas generate (run `node hack/gen-crds.mjs` after changing them)', () => {
    const onDisk = readdirSync(crdDir)
      .filter((n) => n.startsWith('crd-') && n.endsWith('.yaml'))
      .sort()
      .map((name) => ({ name, content: readFileSync(`${crdDir}${name}`, 'utf8') }));
    const generated = renderCrdFiles();
    expect(onDisk.map((f) => f.name)).toEqual(generated.map((f) => f.name));
    for (const [i, file] of generated.entries()) {
      expect(onDisk[i]?.content, file.name).toBe(file.content);
    }
  });
});

describe('renderCrd', () => {
  it('starts with the generated-file header', () => {
    for (const file of renderCrdFiles()) {
      expect(file.content.startsWith(`${CRD_FILE_HEADER}\n`)).toBe(true);
      expect(file.content).toContain('DO NOT EDIT');
    }
  });

  // kubectl and client-go read YAML 1.1, where unquoted True/False/yes/on are booleans; a string
  // enum value such as "True" must survive both readings.
  it.each(['1.1', '1.2'] as const)('round-trips every CRD through YAML %s', (version) => {
    for (const crd of antreaCrds()) {
      expect(parse(renderCrd(crd), { version })).toEqual(JSON.parse(JSON.stringify(crd)));
    }
  });

  it('names files after the singular resource name', () => {
    const names = renderCrdFiles().map((f) => f.name);
    expect(names).toContain('crd-clusternetworkpolicy.yaml');
    expect(names).toContain('crd-supportbundlecollection.yaml');
    expect(new Set(names).size).toBe(names.length);
    for (const crd of antreaCrds()) expect(crdFileName(crd)).toBe(`crd-${crd.spec.names.singular}.yaml`);
  });

  it('is deterministic', () => {
    expect(renderCrdFiles()).toEqual(renderCrdFiles());
  });
});
