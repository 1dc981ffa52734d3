import { unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cniMethodPath, decodeCniCmdResponse, encodeCniCmdRequest } from '../codec/cni-messages.js';
import { AgentRpcError } from '../errors.js';
import { FakeCniAgent } from '../testing/fake-cni-agent.js';
import { GrpcJsUnaryTransport } from './grpc-js-unary-transport.js';
import { H2UnaryTransport } from './h2-unary-transport.js';
import type { UnaryTransport } from './unary-transport.js';

const request = encodeCniCmdRequest({
  cniArgs: {
    containerId: 'c1',
    netns: '/n',
    ifname: 'eth0',
    args: '',
    path: '',
    networkConfiguration: new TextEncoder().encode('{"cniVersion":"1.0.0","name":"antrea"}'),
  },
});

let agent: FakeCniAgent | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

async function rpcError(p: Promise<unknown>): Promise<AgentRpcError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AgentRpcError);
  return err as AgentRpcError;
}

// Both transports must behave the same against a real grpc-js server; the plugin ships the first.
describe.each([
  ['node:http2', (p: string): UnaryTransport => new H2UnaryTransport(p)],
  ['grpc-js', (p: string): UnaryTransport => new GrpcJsUnaryTransport(p)],
])('%s unary transport', (_name, make) => {
  it('delivers the request and returns the response message', async () => {
    agent = await FakeCniAgent.start();
    const reply = await make(agent.socketPath).call(cniMethodPath('CmdAdd'), request, 5000);
    const resp = decodeCniCmdResponse(reply);
    expect(JSON.parse(new TextDecoder().decode(resp.cniResult)).cniVersion).toBe('1.0.0');
    expect(agent.calls).toHaveLength(1);
    expect(agent.calls[0]!.method).toBe('CmdAdd');
    expect(agent.calls[0]!.request.cniArgs?.containerId).toBe('c1');
  });

  it('sends the deadline to the server', async () => {
    agent = await FakeCniAgent.start();
    await make(agent.socketPath).call(cniMethodPath('CmdDel'), request, 30_000);
    const d = agent.calls[0]!.deadline;
    expect(d).toBeGreaterThan(25_000);
    expect(d).toBeLessThanOrEqual(30_000);
  });

  it('reports a server status with its code and message', async () => {
    agent = await FakeCniAgent.start();
    agent.enqueue('CmdCheck', { grpcStatus: 9, details: 'not now: 100% busy' });
    const err = await rpcError(make(agent.socketPath).call(cniMethodPath('CmdCheck'), request, 5000));
    expect(err.grpcCode).toBe(9);
    expect(err.grpcMessage).toBe('not now: 100% busy');
    expect(err.connectFailed).toBe(false);
  });

  it('reports UNIMPLEMENTED for a method the agent does not serve', async () => {
    agent = await FakeCniAgent.start({ methods: ['CmdAdd', 'CmdDel'] });
    const err = await rpcError(make(agent.socketPath).call(cniMethodPath('CmdCheck'), request, 5000));
    expect(err.grpcCode).toBe(12);
  });

  it('gives up at the deadline with DEADLINE_EXCEEDED', async () => {
    agent = await FakeCniAgent.start();
    agent.enqueue('CmdAdd', { hang: true });
    const err = await rpcError(make(agent.socketPath).call(cniMethodPath('CmdAdd'), request, 200));
    expect(err.grpcCode).toBe(4);
    expect(err.connectFailed).toBe(false);
  });

  it('reports UNAVAILABLE with connectFailed when no socket exists', async () => {
    const err = await rpcError(
      make('/nonexistent/antrea/cni.sock').call(cniMethodPath('CmdAdd'), request, 5000),
    );
    expect(err.grpcCode).toBe(14);
    expect(err.connectFailed).toBe(true);
  });
});

describe('node:http2 unary transport edge cases', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  it('reports a refused connection (stale socket file) as agent down', async () => {
    const path = join('/tmp', `antrea-cni-stale-${process.pid}.sock`);
    await writeFile(path, '');
    try {
      const err = await rpcError(new H2UnaryTransport(path).call(cniMethodPath('CmdAdd'), request, 5000));
      expect(err.grpcCode).toBe(14);
      expect(err.connectFailed).toBe(true);
      expect(err.message).toContain('ECONNREFUSED');
    } finally {
      await unlink(path);
    }
  });

  it('reports UNAVAILABLE, not agent-down, when the peer accepts and then hangs up', async () => {
    const path = join('/tmp', `antrea-cni-hangup-${process.pid}.sock`);
    server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server!.listen(path, r));
    const err = await rpcError(new H2UnaryTransport(path).call(cniMethodPath('CmdAdd'), request, 5000));
    expect(err.grpcCode).toBe(14);
    expect(err.connectFailed).toBe(false);
  });
});

describe('node:http2 unary transport: what counts as agent down', () => {
  it('does not call a path it cannot use (ENOTDIR here, EACCES alike) "agent down"', async () => {
    const err = await rpcError(
      new H2UnaryTransport('/etc/hostname/cni.sock').call(cniMethodPath('CmdAdd'), request, 5000),
    );
    expect(err.message).toContain('ENOTDIR');
    expect(err.grpcCode).toBe(14);
    expect(err.connectFailed).toBe(false);
  });
});
