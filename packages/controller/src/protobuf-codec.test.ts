import {
  decodeControlplaneWatchEvent,
  encodeControlplaneObject,
  encodeWatchFrame,
  parseIP,
  WatchFrameDecoder,
} from '@antrea-ts/apis';
import { ApiError } from '@antrea-ts/apiserver';
import { describe, expect, it } from 'vitest';
import { protobufCodec } from './protobuf-codec.js';

describe('protobufCodec', () => {
  it('frames a patch as a watch event an agent decodes back to the same members', () => {
    const patch = {
      apiVersion: 'controlplane.antrea.io/v1beta2',
      kind: 'AddressGroupPatch',
      metadata: { name: 'g', uid: 'g', resourceVersion: '7' },
      addedGroupMembers: [{ pod: { namespace: 'x', name: 'a' }, ips: [parseIP('10.0.0.1')!] }],
    };
    const frame = protobufCodec.frameWatchEvent('MODIFIED', protobufCodec.encode(patch));
    const [raw] = new WatchFrameDecoder().push(frame);
    const ev = decodeControlplaneWatchEvent(raw!);
    expect(ev.type).toBe('MODIFIED');
    expect(ev.kind).toBe('AddressGroupPatch');
    expect(ev.object).toMatchObject({
      metadata: { name: 'g', resourceVersion: '7' },
      addedGroupMembers: [{ pod: { namespace: 'x', name: 'a' } }],
    });
  });

  it('encodes meta/v1 Status for watch ERROR events and decodes request bodies with their kind', () => {
    const status = ApiError.expired().toStatus();
    const bytes = protobufCodec.encode(status as never);
    expect(Buffer.from(bytes.subarray(0, 4)).toString('latin1')).toBe('k8s\0');
    const body = protobufCodec.encode({
      kind: 'NetworkPolicyStatus',
      metadata: { name: 'p' },
      nodes: [{ nodeName: 'n1', generation: 2, realizationFailure: false }],
    });
    expect(protobufCodec.decode!(body)).toMatchObject({
      kind: 'NetworkPolicyStatus',
      metadata: { name: 'p' },
      nodes: [{ nodeName: 'n1', generation: 2 }],
    });
  });

  it('writes the same bytes as the reference envelope and frame encoders', () => {
    const np = {
      kind: 'NetworkPolicy',
      metadata: { name: 'n'.repeat(200), uid: 'u', resourceVersion: '1' },
      rules: [],
      sourceRef: { type: 'K8sNetworkPolicy', namespace: 'x', name: 'p', uid: 'u' },
    } as const;
    const ours = protobufCodec.encode(np);
    expect(
      Buffer.from(ours).equals(Buffer.from(encodeControlplaneObject('NetworkPolicy', np as never))),
    ).toBe(true);
    for (const type of ['ADDED', 'BOOKMARK', 'ERROR'] as const) {
      const big = new Uint8Array(70_000).fill(7);
      for (const obj of [ours, big]) {
        expect(
          Buffer.from(protobufCodec.frameWatchEvent(type, obj)).equals(
            Buffer.from(encodeWatchFrame(type, obj)),
          ),
        ).toBe(true);
      }
    }
    const status = protobufCodec.encode(ApiError.expired().toStatus() as never);
    expect(
      Buffer.from(status).equals(
        Buffer.from(encodeControlplaneObject('Status', ApiError.expired().toStatus() as never)),
      ),
    ).toBe(true);
  });

  it('refuses kinds outside the controlplane protobuf definitions with 406', () => {
    expect(() => protobufCodec.encode({ kind: 'AntreaClusterNetworkPolicyStats' })).toThrow(
      expect.objectContaining({ code: 406 }),
    );
  });
});
