import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCommand, CniAgent } from '../client/agent-client.js';
import { cniErrorFromRpc } from '../client/agent-client.js';
import type { CniCmdArgs } from '../codec/cni-messages.js';
import { AgentRpcError, CniError } from '../errors.js';
import { FakeCniAgent } from '../testing/fake-cni-agent.js';
import { type AgentConnector, type PluginInput, type PluginOutcome, runPlugin } from './run-plugin.js';
import { socketAgentConnector } from './socket-agent-connector.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const CONF = '{"cniVersion":"1.0.0","name":"antrea","type":"antrea"}';
const ADD_ENV = {
  CNI_COMMAND: 'ADD',
  CNI_CONTAINERID: 'c0ffee',
  CNI_NETNS: '/var/run/netns/pod1',
  CNI_IFNAME: 'eth0',
  CNI_ARGS: 'K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod1',
  CNI_PATH: '/opt/cni/bin',
};

/** An agent double for the plugin's own logic; the gRPC path is covered further down. */
function stubAgent(answer: (cmd: AgentCommand, args: CniCmdArgs) => Promise<Uint8Array>) {
  const calls: { cmd: AgentCommand; args: CniCmdArgs }[] = [];
  let probes = 0;
  let probeError: Error | undefined;
  const connector: AgentConnector = {
    async connect(): Promise<CniAgent> {
      return {
        command: (cmd, args) => {
          calls.push({ cmd, args });
          return answer(cmd, args);
        },
      };
    },
    async probe() {
      probes++;
      if (probeError) throw probeError;
    },
  };
  return {
    connector,
    calls,
    probes: () => probes,
    failProbe(err: Error) {
      probeError = err;
    },
  };
}

const noAgent: AgentConnector = {
  connect: () => Promise.reject(new Error('the agent must not be contacted')),
  probe: () => Promise.reject(new Error('the agent must not be probed')),
};

function run(over: Partial<PluginInput> & { stdin?: string }): Promise<PluginOutcome> {
  const { stdin = CONF, ...rest } = over;
  return runPlugin({
    env: ADD_ENV,
    readStdin: async () => enc.encode(stdin),
    agent: noAgent,
    isOwnNetns: async () => false,
    about: 'about line',
    bestEffortDel: true,
    ...rest,
  });
}

function errorJson(o: PluginOutcome): { cniVersion: string; code: number; msg: string; details?: string } {
  expect(o.exitCode).toBe(1);
  return JSON.parse(String(o.stdout));
}

describe('runPlugin without the agent', () => {
  it('prints the about line and versions on stderr when CNI_COMMAND is unset', async () => {
    const o = await run({ env: {} });
    expect(o).toEqual({
      exitCode: 0,
      stdout: '',
      stderr:
        'about line\nCNI protocol versions supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0\n',
    });
  });

  it('answers VERSION, echoing a supported input version', async () => {
    const o = await run({ env: { CNI_COMMAND: 'VERSION' }, stdin: '{"cniVersion":"0.4.0"}' });
    expect(o.exitCode).toBe(0);
    expect(JSON.parse(String(o.stdout))).toEqual({
      cniVersion: '0.4.0',
      supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
    const bare = await run({ env: { CNI_COMMAND: 'VERSION' }, stdin: '' });
    expect(JSON.parse(String(bare.stdout)).cniVersion).toBe('1.1.0');
  });

  it('reports missing variables with code 4 in the error JSON', async () => {
    const e = errorJson(await run({ env: { CNI_COMMAND: 'ADD', CNI_CONTAINERID: 'c' } }));
    expect(e).toEqual({
      cniVersion: '1.1.0',
      code: 4,
      msg: 'required env variables [CNI_NETNS,CNI_IFNAME] missing',
    });
  });

  it('reports a stdin read failure with code 5', async () => {
    const e = errorJson(await run({ readStdin: () => Promise.reject(new Error('EIO')) }));
    expect([e.code, e.msg]).toEqual([5, 'error reading from stdin: EIO']);
  });

  it('reports bad JSON with code 6, a missing name with 7, an unknown version with 1', async () => {
    expect(errorJson(await run({ stdin: '{"cniVersion":' })).code).toBe(6);
    expect(errorJson(await run({ stdin: '{"cniVersion":"1.0.0"}' }))).toEqual({
      cniVersion: '1.0.0',
      code: 7,
      msg: 'missing network name',
    });
    expect(errorJson(await run({ stdin: '{"cniVersion":"3.0.0","name":"a"}' })).code).toBe(1);
  });

  it('refuses CHECK below 0.4.0 and GC/STATUS below 1.1.0 (code 1)', async () => {
    const old = '{"cniVersion":"0.3.1","name":"antrea"}';
    expect(errorJson(await run({ env: { ...ADD_ENV, CNI_COMMAND: 'CHECK' }, stdin: old })).msg).toBe(
      'config version does not allow CHECK',
    );
    expect(errorJson(await run({ env: { CNI_COMMAND: 'GC', CNI_PATH: '/p' } })).msg).toBe(
      'config version does not allow GC',
    );
    expect(errorJson(await run({ env: { CNI_COMMAND: 'STATUS' } })).msg).toBe(
      'config version does not allow STATUS',
    );
  });

  it('accepts GC without contacting the agent (it garbage-collects on its own)', async () => {
    const o = await run({
      env: { CNI_COMMAND: 'GC', CNI_PATH: '/p' },
      stdin: '{"cniVersion":"1.1.0","name":"a"}',
    });
    expect(o).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });

  it('refuses ADD and DEL into its own netns (code 8) unless CNI_NETNS_OVERRIDE is set', async () => {
    expect(errorJson(await run({ isOwnNetns: async () => true })).code).toBe(8);
    const del = { ...ADD_ENV, CNI_COMMAND: 'DEL' };
    expect(errorJson(await run({ env: del, isOwnNetns: async () => true })).code).toBe(8);
    const stub = stubAgent(async () => new Uint8Array(0));
    const o = await run({
      env: { ...ADD_ENV, CNI_NETNS_OVERRIDE: '1' },
      isOwnNetns: async () => true,
      agent: stub.connector,
    });
    expect(o.exitCode).toBe(0);
  });
});

describe('runPlugin with an agent double', () => {
  it('forwards ADD with the env and the exact stdin bytes, and prints the result verbatim', async () => {
    const stdin = '{"cniVersion":"1.0.0","name":"antrea","type":"antrea","prevResult":{"ips":[]}}  ';
    const stub = stubAgent(async () => enc.encode('{"cniVersion":"1.0.0","ips":[]}'));
    const o = await run({ stdin, agent: stub.connector });
    expect(o.exitCode).toBe(0);
    expect(dec.decode(o.stdout as Uint8Array)).toBe('{"cniVersion":"1.0.0","ips":[]}');
    expect(stub.calls).toEqual([
      {
        cmd: 'ADD',
        args: {
          containerId: 'c0ffee',
          netns: '/var/run/netns/pod1',
          ifname: 'eth0',
          args: 'K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod1',
          path: '/opt/cni/bin',
          networkConfiguration: enc.encode(stdin),
        },
      },
    ]);
  });

  it('reports agent errors in the error JSON with the config version', async () => {
    const stub = stubAgent(() => Promise.reject(new CniError(101, 'no IP left', 'range 10.0.0.0/30')));
    expect(errorJson(await run({ agent: stub.connector }))).toEqual({
      cniVersion: '1.0.0',
      code: 101,
      msg: 'no IP left',
      details: 'range 10.0.0.0/30',
    });
  });

  it('turns an unexpected failure into code 999, as libcni does', async () => {
    const stub = stubAgent(() => Promise.reject(new TypeError('boom')));
    expect(errorJson(await run({ agent: stub.connector }))).toMatchObject({ code: 999, msg: 'boom' });
  });

  const down = () => Promise.reject(cniErrorFromRpc(new AgentRpcError(14, 'dial unix: ENOENT', true)));
  const slow = () =>
    Promise.reject(cniErrorFromRpc(new AgentRpcError(4, 'context deadline exceeded', false)));
  const DEL_ENV = { CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'c0ffee', CNI_IFNAME: 'eth0' };

  it('completes DEL when the agent is not serving (best effort), saying so on stderr', async () => {
    const o = await run({ env: DEL_ENV, agent: stubAgent(down).connector });
    expect(o.exitCode).toBe(0);
    expect(o.stdout).toBe('');
    expect(o.stderr).toContain('antrea-agent is not serving');
  });

  it("fails DEL with code 11 when agent-down DEL is set to fail (Antrea's behaviour)", async () => {
    const o = await run({ env: DEL_ENV, agent: stubAgent(down).connector, bestEffortDel: false });
    expect(errorJson(o).code).toBe(11);
  });

  it('fails DEL with code 11 when the agent is up but too slow, and ADD when it is down', async () => {
    expect(errorJson(await run({ env: DEL_ENV, agent: stubAgent(slow).connector })).code).toBe(11);
    expect(errorJson(await run({ agent: stubAgent(down).connector })).code).toBe(11);
  });

  it('answers STATUS from a socket probe: 0 when it connects, 50 when not', async () => {
    const env = { CNI_COMMAND: 'STATUS' };
    const stdin = '{"cniVersion":"1.1.0","name":"antrea"}';
    const stub = stubAgent(async () => new Uint8Array(0));
    expect(await run({ env, stdin, agent: stub.connector })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    stub.failProbe(new Error('connect ENOENT /var/run/antrea/cni.sock'));
    expect(errorJson(await run({ env, stdin, agent: stub.connector }))).toEqual({
      cniVersion: '1.1.0',
      code: 50,
      msg: 'antrea-agent is not available',
      details: 'connect ENOENT /var/run/antrea/cni.sock',
    });
    expect(stub.calls).toEqual([]);
  });
});

describe('runPlugin against the fake agent over gRPC', () => {
  let agent: FakeCniAgent | undefined;
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
  });

  const connector = (a: FakeCniAgent, timeoutMs = 5000) =>
    socketAgentConnector({ socketPath: a.socketPath, timeoutMs });

  it('runs ADD, CHECK and DEL end to end', async () => {
    agent = await FakeCniAgent.start();
    const add = await run({ agent: connector(agent) });
    expect(add.exitCode).toBe(0);
    expect(JSON.parse(dec.decode(add.stdout as Uint8Array)).ips[0].address).toBe('10.10.1.5/24');
    for (const cmd of ['CHECK', 'DEL']) {
      const o = await run({ env: { ...ADD_ENV, CNI_COMMAND: cmd }, agent: connector(agent) });
      expect(o.exitCode).toBe(0);
    }
    expect(agent.calls.map((c) => c.method)).toEqual(['CmdAdd', 'CmdCheck', 'CmdDel']);
    expect(dec.decode(agent.calls[0]!.request.cniArgs!.networkConfiguration)).toBe(CONF);
  });

  it.each([
    ['INCOMPATIBLE_CNI_VERSION', 1],
    ['UNSUPPORTED_FIELD', 2],
    ['UNKNOWN_CONTAINER', 3],
    ['INVALID_NETWORK_CONFIG', 7],
    ['TRY_AGAIN_LATER', 11],
    ['IPAM_FAILURE', 101],
    ['CONFIG_INTERFACE_FAILURE', 102],
    ['CHECK_INTERFACE_FAILURE', 103],
  ])('reports the agent error %s as CNI code %i', async (name, code) => {
    agent = await FakeCniAgent.start();
    agent.enqueue('CmdAdd', { error: { code, message: `agent failed: ${name}` } });
    expect(errorJson(await run({ agent: connector(agent) }))).toEqual({
      cniVersion: '1.0.0',
      code,
      msg: `agent failed: ${name}`,
    });
  });

  it('maps UNIMPLEMENTED to 202, other statuses to 201, and the deadline to 11', async () => {
    agent = await FakeCniAgent.start({ methods: ['CmdAdd', 'CmdDel'] });
    const check = await run({ env: { ...ADD_ENV, CNI_COMMAND: 'CHECK' }, agent: connector(agent) });
    expect(errorJson(check).code).toBe(202);
    agent.enqueue('CmdAdd', { grpcStatus: 13, details: 'panic' });
    expect(errorJson(await run({ agent: connector(agent) }))).toMatchObject({
      code: 201,
      msg: 'rpc error: code = Internal desc = panic',
    });
    agent.enqueue('CmdAdd', { hang: true });
    expect(errorJson(await run({ agent: connector(agent, 150) })).code).toBe(11);
  });

  it('probes the real socket for STATUS', async () => {
    agent = await FakeCniAgent.start();
    const env = { CNI_COMMAND: 'STATUS' };
    const stdin = '{"cniVersion":"1.1.0","name":"antrea"}';
    expect((await run({ env, stdin, agent: connector(agent) })).exitCode).toBe(0);
    const path = agent.socketPath;
    await agent.stop();
    const gone = socketAgentConnector({ socketPath: path, timeoutMs: 1000 });
    expect(errorJson(await run({ env, stdin, agent: gone })).code).toBe(50);
  });
});
