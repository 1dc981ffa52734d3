import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { CniProtoDecodeError } from '../errors.js';
import {
  type CniCmdArgs,
  cniMethodPath,
  decodeCniCmdRequest,
  decodeCniCmdResponse,
  encodeCniCmdRequest,
  encodeCniCmdResponse,
} from './cni-messages.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

// The contract as the apis package declares it, through protobufjs, as an independent implementation.
function referenceRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.addJSON(protobuf.common.get('google/protobuf/any.proto')!.nested!);
  const proto = new URL('../../../apis/proto/antrea-cni-v1beta1.proto', import.meta.url);
  protobuf.parse(readFileSync(proto, 'utf8'), root, { keepCase: false });
  root.resolveAll();
  return root;
}
const NS = 'antrea_io.antrea.pkg.apis.cni.v1beta1';

const args: CniCmdArgs = {
  containerId: 'c1',
  netns: '',
  ifname: 'eth0',
  args: '',
  path: '',
  networkConfiguration: utf8('{}'),
};

describe('CNI protobuf messages', () => {
  it('encodes a request to golden bytes (empty proto3 fields omitted)', () => {
    // 0a0e: field 1 (cni_args), 14 bytes; 0a02 "c1"; 1a04 "eth0"; 3202 "{}"
    expect(hex(encodeCniCmdRequest({ cniArgs: args }))).toBe('0a0e0a0263311a0465746830' + '32027b7d');
  });

  it('names the RPCs as grpc-go registers them', () => {
    expect(cniMethodPath('CmdAdd')).toBe('/antrea_io.antrea.pkg.apis.cni.v1beta1.Cni/CmdAdd');
  });

  it('round-trips requests and responses', () => {
    const full: CniCmdArgs = {
      containerId: 'abc',
      netns: '/var/run/netns/x',
      ifname: 'eth0',
      args: 'K8S_POD_NAME=p',
      path: '/opt/cni/bin',
      networkConfiguration: utf8('{"name":"antrea"}'),
    };
    expect(decodeCniCmdRequest(encodeCniCmdRequest({ cniArgs: full }))).toEqual({ cniArgs: full });
    const resp = {
      cniResult: new Uint8Array(0),
      error: { code: 102, message: 'failed', details: [{ typeUrl: 't/x', value: Uint8Array.of(1, 2) }] },
    };
    expect(decodeCniCmdResponse(encodeCniCmdResponse(resp))).toEqual(resp);
  });

  it('keeps an error with code 0 present (proto presence, as Go checks resp.Error != nil)', () => {
    const bytes = encodeCniCmdResponse({
      cniResult: new Uint8Array(0),
      error: { code: 0, message: '', details: [] },
    });
    expect(hex(bytes)).toBe('1200');
    expect(decodeCniCmdResponse(bytes).error).toEqual({ code: 0, message: '', details: [] });
  });

  it('agrees byte for byte with protobufjs on the apis .proto', () => {
    const root = referenceRoot();
    const Req = root.lookupType(`${NS}.CniCmdRequest`);
    const Resp = root.lookupType(`${NS}.CniCmdResponse`);
    const full = { ...args, netns: '/n', args: 'A=B', path: '/p' };
    expect(hex(encodeCniCmdRequest({ cniArgs: full }))).toBe(hex(Req.encode({ cniArgs: full }).finish()));
    const theirs = Resp.encode({
      cniResult: utf8('{"cniVersion":"1.0.0"}'),
      error: { code: 103, message: 'check failed', details: [{ type_url: 'u', value: Uint8Array.of(9) }] },
    }).finish();
    expect(decodeCniCmdResponse(theirs)).toEqual({
      cniResult: utf8('{"cniVersion":"1.0.0"}'),
      error: { code: 103, message: 'check failed', details: [{ typeUrl: 'u', value: Uint8Array.of(9) }] },
    });
    const ours = encodeCniCmdResponse({
      cniResult: utf8('r'),
      error: { code: 11, message: 'later', details: [] },
    });
    expect(Resp.toObject(Resp.decode(ours), { bytes: String })).toEqual({
      cniResult: Buffer.from('r').toString('base64'),
      error: { code: 11, message: 'later' },
    });
  });

  it('skips unknown fields and decodes negative enum values', () => {
    // field 9 varint 1, field 10 fixed32, then error{code: -1 (ten-byte varint)}
    const bytes = Uint8Array.from(
      Buffer.from('4801' + '5501020304' + '120b' + '08ffffffffffffffffff01', 'hex'),
    );
    expect(decodeCniCmdResponse(bytes).error?.code).toBe(-1);
  });

  it.each([
    ['truncated length', '0a05616263'],
    ['truncated varint', '08'],
    ['field number 0', '0001'],
    ['wire type 3', '0b'],
    ['bytes field sent as varint', '0801'],
  ])('rejects malformed input: %s', (_why, h) => {
    expect(() => decodeCniCmdResponse(Uint8Array.from(Buffer.from(h, 'hex')))).toThrow(CniProtoDecodeError);
  });

  it('rejects invalid UTF-8 in string fields', () => {
    const bytes = Uint8Array.from(Buffer.from('0a030a01ff', 'hex'));
    expect(() => decodeCniCmdRequest(bytes)).toThrow(CniProtoDecodeError);
  });
});
