import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { controlplaneDescriptor } from './generated/descriptor.js';
import { DECODE_KEEP_ZERO, GO_ALWAYS_WRITTEN } from './go-presence.js';

const protoDir = fileURLToPath(new URL('../../proto/', import.meta.url));

describe('controlplane descriptor', () => {
  it('is up to date with the .proto files (run packages/apis/proto/generate.mjs)', () => {
    const root = new protobuf.Root();
    root.loadSync(join(protoDir, 'antrea-controlplane-v1beta2.proto'), { keepCase: true });
    expect(controlplaneDescriptor).toEqual(root.toJSON());
  });

  it('keeps the upstream quirks in field numbering', () => {
    const root = protobuf.Root.fromJSON(controlplaneDescriptor);
    const id = (type: string, field: string) => root.lookupType(type).fields[field]?.id;
    expect(id('antrea_io.antrea.pkg.apis.controlplane.v1beta2.NetworkPolicyEvaluation', 'metadata')).toBe(3);
    expect(id('k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference', 'apiVersion')).toBe(5);
    expect(id('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'managedFields')).toBe(17);
    expect(id('k8s.io.apimachinery.pkg.runtime.TypeMeta', 'apiVersion')).toBe(1);
    expect(id('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', 'object')).toBe(2);
    expect(
      root.lookupType('antrea_io.antrea.pkg.apis.controlplane.v1beta2.NetworkPolicyPeer').fields[
        'labelIdentities'
      ]?.packed,
    ).toBe(false);
  });

  it('the Go presence tables name only real fields', () => {
    const root = protobuf.Root.fromJSON(controlplaneDescriptor);
    for (const table of [GO_ALWAYS_WRITTEN, DECODE_KEEP_ZERO]) {
      for (const [type, fields] of Object.entries(table)) {
        const t = root.lookupType(type);
        for (const f of fields) expect(t.fields[f], `${type}.${f}`).toBeDefined();
      }
    }
  });
});
