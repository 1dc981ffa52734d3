import { CniCode, CniError, DEFAULT_CNI_SOCKET_PATH } from '@antrea-ts/cni/plugin';
import { describe, expect, it } from 'vitest';
import { loadOptions } from './options.js';

describe('antrea-cni options', () => {
  it("defaults to Antrea's socket, a deadline under kubelet's, best-effort DEL and the light transport", () => {
    expect(loadOptions({})).toEqual({
      socketPath: DEFAULT_CNI_SOCKET_PATH,
      timeoutMs: 100_000,
      bestEffortDel: true,
      transport: 'h2',
    });
    expect(
      loadOptions({
        ANTREA_CNI_SOCKET: '/run/x.sock',
        ANTREA_CNI_TIMEOUT_MS: '2500',
        ANTREA_CNI_DEL_AGENT_DOWN: 'fail',
        ANTREA_CNI_TRANSPORT: 'grpc-js',
      }),
    ).toEqual({ socketPath: '/run/x.sock', timeoutMs: 2500, bestEffortDel: false, transport: 'grpc-js' });
  });

  it.each([
    ['ANTREA_CNI_TIMEOUT_MS', '1.5', 'want a positive integer number of milliseconds'],
    ['ANTREA_CNI_TIMEOUT_MS', '-1', 'want a positive integer number of milliseconds'],
    ['ANTREA_CNI_DEL_AGENT_DOWN', 'maybe', 'want "succeed" or "fail"'],
    ['ANTREA_CNI_TRANSPORT', 'udp', 'want "h2" or "grpc-js"'],
  ])('%s=%s is a CNI error with code 4 (invalid environment variables)', (name, value, want) => {
    let err: unknown;
    try {
      loadOptions({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CniError);
    expect(err).toMatchObject({
      cniCode: CniCode.INVALID_ENVIRONMENT_VARIABLES,
      msg: `invalid ${name}`,
      details: `"${value}": ${want}`,
    });
  });
});
