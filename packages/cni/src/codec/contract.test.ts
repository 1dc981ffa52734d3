// The plugin carries its own codec and constants so that its start-up does not load @antrea-ts/apis
// (~150 ms); these tests keep the copy identical to the shared contract.
import * as apis from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { AntreaErrorCode } from '../spec/error-codes.js';
import { ANTREA_CNI_API_VERSION } from '../spec/versions.js';
import {
  CNI_SERVICE_NAME,
  type CniCmdArgs,
  type CniCmdResponse,
  decodeCniCmdRequest,
  decodeCniCmdResponse,
  encodeCniCmdRequest,
  encodeCniCmdResponse,
} from './cni-messages.js';

const enc = new TextEncoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const argsCases: CniCmdArgs[] = [
  { containerId: '', netns: '', ifname: '', args: '', path: '', networkConfiguration: new Uint8Array(0) },
  {
    containerId: 'c0ffee',
    netns: '/var/run/netns/cni-1234',
    ifname: 'eth0',
    args: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0',
    path: '/opt/cni/bin:/usr/lib/cni',
    networkConfiguration: enc.encode(`{"cniVersion":"1.0.0","name":"antrea","x":"${'é'.repeat(300)}"}`),
  },
];

const responseCases: CniCmdResponse[] = [
  { cniResult: enc.encode('{"cniVersion":"1.0.0"}') },
  { cniResult: new Uint8Array(0), error: { code: 0, message: '', details: [] } },
  {
    cniResult: new Uint8Array(0),
    error: {
      code: 101,
      message: 'no IP',
      details: [{ typeUrl: 'type.googleapis.com/x', value: Uint8Array.of(1, 2) }],
    },
  },
];

describe('plugin codec vs @antrea-ts/apis contract', () => {
  it('shares constants: error codes, API version, service name', () => {
    expect(AntreaErrorCode).toEqual(apis.CNI_ERROR_CODES);
    expect(ANTREA_CNI_API_VERSION).toBe(apis.ANTREA_CNI_VERSION);
    expect(CNI_SERVICE_NAME).toBe(apis.CNI_GRPC_SERVICE);
  });

  it.each(argsCases.map((a, i) => [i, a] as const))('encodes request %i to the same bytes', (_i, a) => {
    const ours = encodeCniCmdRequest({ cniArgs: a });
    expect(hex(ours)).toBe(hex(apis.encodeCniCmdRequest({ cniArgs: a })));
    expect(apis.decodeCniCmdRequest(ours)).toEqual({ cniArgs: a });
    expect(decodeCniCmdRequest(apis.encodeCniCmdRequest({ cniArgs: a }))).toEqual({ cniArgs: a });
  });

  it.each(responseCases.map((r, i) => [i, r] as const))('decodes response %i as apis encodes it', (_i, r) => {
    expect(decodeCniCmdResponse(apis.encodeCniCmdResponse(r))).toEqual(r);
    expect(apis.decodeCniCmdResponse(encodeCniCmdResponse(r))).toEqual(r);
  });
});
