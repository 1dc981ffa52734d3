import { describe, expect, it } from 'vitest';
import { type CniCmdArgs, decodeCniCmdRequest, encodeCniCmdResponse } from '../codec/cni-messages.js';
import { AgentRpcError, CniError } from '../errors.js';
import { AntreaErrorCode } from '../spec/error-codes.js';
import type { UnaryTransport } from '../transport/unary-transport.js';
import { AgentClient, cniErrorFromRpc } from './agent-client.js';

const args: CniCmdArgs = {
  containerId: 'c1',
  netns: '/n',
  ifname: 'eth0',
  args: '',
  path: '',
  networkConfiguration: new TextEncoder().encode('{"name":"antrea"}'),
};

/** A transport answering from a function, recording what it was asked. */
function transport(answer: () => Uint8Array | Promise<Uint8Array>) {
  const seen: { path: string; request: Uint8Array; timeoutMs: number }[] = [];
  const t: UnaryTransport = {
    async call(path, request, timeoutMs) {
      seen.push({ path, request, timeoutMs });
      return answer();
    },
  };
  return { t, seen };
}

async function cniErrorOf(p: Promise<unknown>): Promise<CniError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CniError);
  return err as CniError;
}

describe('AgentClient', () => {
  it('calls the method of the command with the args and deadline, and returns cni_result', async () => {
    const { t, seen } = transport(() =>
      encodeCniCmdResponse({ cniResult: new TextEncoder().encode('{"ok":1}') }),
    );
    const client = new AgentClient(t, 1234);
    expect(new TextDecoder().decode(await client.command('DEL', args))).toBe('{"ok":1}');
    expect(seen[0]!.path).toBe('/antrea_io.antrea.pkg.apis.cni.v1beta1.Cni/CmdDel');
    expect(seen[0]!.timeoutMs).toBe(1234);
    expect(decodeCniCmdRequest(seen[0]!.request)).toEqual({ cniArgs: args });
  });

  // Antrea's agent codes are CNI codes: the plugin passes them through unchanged, with the message.
  it.each(Object.entries(AntreaErrorCode))(
    'passes the agent error %s (%i) through unchanged',
    async (_n, code) => {
      const { t } = transport(() =>
        encodeCniCmdResponse({
          cniResult: new Uint8Array(0),
          error: { code, message: `agent says ${code}`, details: [] },
        }),
      );
      const err = await cniErrorOf(new AgentClient(t, 1000).command('ADD', args));
      expect([err.cniCode, err.msg, err.details]).toEqual([code, `agent says ${code}`, '']);
    },
  );

  it('maps an undecodable reply to UNKNOWN_RPC_ERROR (201)', async () => {
    const { t } = transport(() => Uint8Array.of(0x0a, 0x05));
    expect((await cniErrorOf(new AgentClient(t, 1000).command('CHECK', args))).cniCode).toBe(201);
  });
});

describe('cniErrorFromRpc (pkg/cni/client.go)', () => {
  it.each([
    [12, 202],
    [14, 11],
    [4, 11],
    [2, 201],
    [1, 201],
    [13, 201],
    [16, 201],
  ])('gRPC status %i -> CNI code %i', (grpcCode, cniCode) => {
    expect(cniErrorFromRpc(new AgentRpcError(grpcCode, 'x', false)).cniCode).toBe(cniCode);
  });

  it('words errors as the Go plugin does', () => {
    const unimpl = cniErrorFromRpc(new AgentRpcError(12, 'unknown service', false));
    expect(unimpl.msg).toBe(
      'incompatible CNI API version between client (antrea-cni) and server (antrea-agent), client is using version 1.0.0-beta.1',
    );
    expect(unimpl.details).toBe(
      'service or method unimplemented by gRPC server: rpc error: code = Unimplemented desc = unknown service',
    );
    expect(cniErrorFromRpc(new AgentRpcError(14, 'down', true)).msg).toBe(
      'rpc error: code = Unavailable desc = down',
    );
  });

  it('lets transport failures through the client as mapped CNI errors', async () => {
    const { t } = transport(() => Promise.reject(new AgentRpcError(4, 'context deadline exceeded', false)));
    const err = await cniErrorOf(new AgentClient(t, 1000).command('ADD', args));
    expect(err.cniCode).toBe(11);
    expect(err.cause).toBeInstanceOf(AgentRpcError);
  });
});
