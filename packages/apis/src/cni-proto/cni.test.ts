import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtoError } from '../k8s-proto/errors.js';
import {
  CNI_ERROR_CODES,
  CNI_GRPC_SERVICE,
  type CniCmdRequest,
  type CniCmdResponse,
  cniServiceDefinition,
  decodeCniCmdRequest,
  decodeCniCmdResponse,
  encodeCniCmdRequest,
  encodeCniCmdResponse,
} from './cni.js';
import { cniDescriptor } from './generated/descriptor.js';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const toHex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const utf8 = (s: string) => new TextEncoder().encode(s);

const REQUEST: CniCmdRequest = {
  cniArgs: {
    containerId: 'c1',
    netns: '/ns',
    ifname: 'eth0',
    args: 'K=V',
    path: '/opt/cni/bin',
    networkConfiguration: utf8('{}'),
  },
};

describe('CNI messages', () => {
  it('CniCmdRequest golden bytes built from cni.proto field numbers', () => {
    const args = [
      '0a 02 6331', // container_id = 1
      '12 03 2f6e73', // netns = 2
      '1a 04 65746830', // ifname = 3
      '22 03 4b3d56', // args = 4
      '2a 0c 2f6f70742f636e692f62696e', // path = 5
      '32 02 7b7d', // network_configuration = 6 (bytes)
    ].join('');
    const expected = `0a 26 ${args}`; // cni_args = 1, 38 bytes
    expect(toHex(encodeCniCmdRequest(REQUEST))).toBe(expected.replace(/\s/g, ''));
    expect(decodeCniCmdRequest(hex(expected))).toEqual(REQUEST);
  });

  it('CniCmdResponse golden bytes: error{code=1 enum varint, message=2, details=3 Any{type_url=1, value=2}}', () => {
    const res: CniCmdResponse = {
      cniResult: new Uint8Array(0),
      error: {
        code: CNI_ERROR_CODES.TRY_AGAIN_LATER,
        message: 'busy',
        details: [{ typeUrl: 't/x', value: Uint8Array.of(1) }],
      },
    };
    // proto3: the empty cni_result is not written.
    const expected = '12 12 08 0b 12 04 62757379 1a 08 0a 03 742f78 12 01 01';
    expect(toHex(encodeCniCmdResponse(res))).toBe(expected.replace(/\s/g, ''));
    expect(decodeCniCmdResponse(hex(expected))).toEqual(res);
    const ok: CniCmdResponse = { cniResult: utf8('{"cniVersion":"0.4.0"}') };
    expect(decodeCniCmdResponse(encodeCniCmdResponse(ok))).toEqual(ok);
  });

  it('ErrorCode values match the .proto enum', () => {
    const root = protobuf.Root.fromJSON(cniDescriptor);
    expect(root.lookupEnum(`${CNI_GRPC_SERVICE.replace(/\.Cni$/, '')}.ErrorCode`).values).toEqual(
      CNI_ERROR_CODES,
    );
  });

  it('rejects garbage with PROTO_DECODE and bad input with PROTO_ENCODE', () => {
    for (const bad of ['0a', '0a05 0a', '0aff01']) {
      let caught: unknown;
      try {
        decodeCniCmdRequest(hex(bad));
      } catch (err) {
        caught = err;
      }
      expect(ProtoError.is(caught) && (caught as ProtoError).code).toBe('PROTO_DECODE');
    }
    let caught: unknown;
    try {
      encodeCniCmdRequest({ cniArgs: { ...REQUEST.cniArgs!, netns: 5 as unknown as string } });
    } catch (err) {
      caught = err;
    }
    expect(ProtoError.is(caught) && (caught as ProtoError).code).toBe('PROTO_ENCODE');
  });

  it('fuzz: random bytes decode or throw PROTO_DECODE', () => {
    let s = 99;
    const rand = () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
    for (let i = 0; i < 2000; i++) {
      const input = new Uint8Array(Math.floor(rand() * 48)).map(() => Math.floor(rand() * 256));
      for (const decode of [decodeCniCmdRequest, decodeCniCmdResponse]) {
        try {
          decode(input);
        } catch (err) {
          expect(ProtoError.is(err), `${toHex(input)}: ${String(err)}`).toBe(true);
        }
      }
    }
  });
});

describe('CNI service definition with @grpc/grpc-js', () => {
  let dir: string;
  let server: grpc.Server;
  let client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;
  const seen: CniCmdRequest[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cni-proto-'));
    const def = cniServiceDefinition();
    server = new grpc.Server();
    server.addService(def, {
      // CmdCheck deliberately missing: grpc-js answers UNIMPLEMENTED, which antrea-cni maps to
      // INCOMPATIBLE_API_VERSION.
      CmdAdd: (
        call: grpc.ServerUnaryCall<CniCmdRequest, CniCmdResponse>,
        cb: grpc.sendUnaryData<CniCmdResponse>,
      ) => {
        seen.push(call.request);
        cb(null, { cniResult: utf8('{"cniVersion":"1.0.0"}') });
      },
      cmdDel: (
        _call: grpc.ServerUnaryCall<CniCmdRequest, CniCmdResponse>,
        cb: grpc.sendUnaryData<CniCmdResponse>,
      ) => {
        cb(null, { cniResult: new Uint8Array(0), error: { code: 3, message: 'gone', details: [] } });
      },
    });
    const address = `unix://${join(dir, 'cni.sock')}`;
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    const Client = grpc.makeGenericClientConstructor(def, 'Cni');
    client = new Client(address, grpc.credentials.createInsecure()) as typeof client;
  });

  afterAll(async () => {
    client?.close();
    await new Promise<void>((resolve) => server?.tryShutdown(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, req: CniCmdRequest) =>
    new Promise<CniCmdResponse>((resolve, reject) =>
      client[method]!(req, (err: grpc.ServiceError | null, res: CniCmdResponse) =>
        err ? reject(err) : resolve(res),
      ),
    );

  it('serves CmdAdd and CmdDel over a unix socket at the Antrea method paths', async () => {
    const def = cniServiceDefinition();
    expect(def.CmdAdd.path).toBe('/antrea_io.antrea.pkg.apis.cni.v1beta1.Cni/CmdAdd');
    const added = await call('CmdAdd', REQUEST);
    expect(new TextDecoder().decode(added.cniResult)).toBe('{"cniVersion":"1.0.0"}');
    expect(seen).toEqual([REQUEST]);
    const deleted = await call('cmdDel', REQUEST);
    expect(deleted.error).toEqual({ code: CNI_ERROR_CODES.UNKNOWN_CONTAINER, message: 'gone', details: [] });
  });

  it('an unimplemented method yields gRPC UNIMPLEMENTED', async () => {
    await expect(call('CmdCheck', REQUEST)).rejects.toMatchObject({ code: grpc.status.UNIMPLEMENTED });
  });
});

describe('generated descriptors', () => {
  const protoDir = fileURLToPath(new URL('../../proto/', import.meta.url));
  it('cni descriptor is up to date with antrea-cni-v1beta1.proto (run packages/apis/proto/generate.mjs)', () => {
    const root = new protobuf.Root();
    root.loadSync(join(protoDir, 'antrea-cni-v1beta1.proto'), { keepCase: false });
    expect(cniDescriptor).toEqual(root.toJSON());
  });
});
