// antctl in agent mode against the Antrea-TS agent's real REST API (fastify over HTTPS, built by
// @antrea-ts/agent's buildRestApi) fed by an in-memory source: proves the paths, query parameters
// and response shapes antctl and the agent agree on, and that antctl authenticates with the
// agent's loopback token.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentApiSource,
  AgentMetrics,
  agentApiCertificates,
  buildRestApi,
  Pipeline,
  type PodInterface,
  writeLoopbackToken,
} from '@antrea-ts/agent';
import { AGENT_INFO } from '@antrea-ts/antctl/testing';
import type { FlowStatsRequest } from '@antrea-ts/openflow';
import { SAMPLE_FLOWS } from '@antrea-ts/openflow/testing';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { antctl as antctlAnonymous } from './helpers.js';

const tokenDir = mkdtempSync(join(tmpdir(), 'antctl-agent-mode-'));
const tokenFile = join(tokenDir, 'loopback-client-token');
/** antctl as inside the agent Pod: with the agent's loopback token. */
const antctl = (argv: string[], env: Record<string, string> = {}) =>
  antctlAnonymous(argv, { ANTCTL_AGENT_TOKEN_FILE: tokenFile, ...env });

const pod = (name: string, ns: string, ip: string, ofport: number): PodInterface =>
  ({
    containerId: `${name}0123456789abcdef`,
    podName: name,
    podNamespace: ns,
    hostIfName: `${name}-a1b2c3`,
    ifName: 'eth0',
    netns: `/var/run/netns/${name}`,
    ipCidr: `${ip}/24`,
    ip,
    mac: '16:6e:1a:2b:3c:4d',
    ofport,
  }) as PodInterface;

describe('antctl agent mode against the agent REST API', () => {
  let app: FastifyInstance;
  let address: string;
  const dumps: FlowStatsRequest[] = [];
  const traced: string[] = [];

  beforeAll(async () => {
    const pipeline = new Pipeline(new Set(['podConnectivity', 'networkPolicy']));
    const source: AgentApiSource = {
      pods: () => [pod('web-0', 'default', '10.10.0.2', 3), pod('db-0', 'prod', '10.10.0.5', 4)],
      agentInfo: () => AGENT_INFO,
      ready: () => true,
      sw: {
        dumpFlows: async (req: FlowStatsRequest = {}) => {
          dumps.push(req);
          return SAMPLE_FLOWS.map((s) => s.flow).filter(
            (f) => req.table === undefined || f.table === req.table,
          );
        },
      } as unknown as AgentApiSource['sw'],
      pipeline,
      metrics: new AgentMetrics(),
      refreshMetrics: () => {},
      dumpGroups: async () => [
        {
          groupId: 9,
          type: 'select',
          buckets: [{ bucketId: 0, weight: 100, actions: [{ type: 'output', port: 3 }] }],
        },
        { groupId: 4, type: 'select', buckets: [] },
      ],
      serviceFlows: (namespace, name) =>
        namespace === 'default' && name === 'web'
          ? { flows: [SAMPLE_FLOWS[0]!.flow], groupIds: [9] }
          : { flows: [], groupIds: [] },
      tracing: {
        pods: () => [pod('web-0', 'default', '10.10.0.2', 3)],
        tracingPorts: () => ({ gateway: { name: 'antrea-gw0', ip: '10.10.0.1', mac: 'be:ef:00:00:00:01' } }),
        traceFlow: async (flow) => {
          traced.push(flow);
          return `Flow: ${flow}\n\nFinal flow: unchanged\nDatapath actions: 3\n`;
        },
      },
    };
    const logger = pino({ level: 'silent' });
    const loopbackToken = await writeLoopbackToken(tokenFile, randomBytes);
    app = buildRestApi(source, logger, {
      certificates: agentApiCertificates(logger),
      auth: { loopbackToken, logger },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    address = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await app?.close();
    rmSync(tokenDir, { recursive: true, force: true });
  });

  it('without the loopback token the agent answers 401 and antctl says so', async () => {
    const r = await antctlAnonymous(['--mode', 'agent', '--agent-address', address, 'get', 'podinterface']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('did not accept the token (401 Unauthorized');
    expect(r.err).toContain("the agent's loopback token");
  });

  it('get agentinfo, detected from POD_NAME', async () => {
    const r = await antctl(['get', 'agentinfo', '--agent-address', address], {
      POD_NAME: 'antrea-agent-x7k2p',
    });
    expect(r.err).toBe('');
    expect(r.out.split('\n')[1]).toMatch(
      /^kube-system\/antrea-agent-x7k2p node-a Healthy 10\.10\.0\.0\/24 1 +1 +1 +4 +$/,
    );
  });

  it('get podinterface filters by name and Namespace on the agent', async () => {
    const all = await antctl(['--mode', 'agent', '--agent-address', address, 'get', 'pi']);
    expect(all.out).toBe(
      [
        'NAMESPACE NAME  INTERFACE-NAME IP        MAC               PORT-UUID OF-PORT CONTAINER-ID',
        'default   web-0 web-0-a1b2c3   10.10.0.2 16:6e:1a:2b:3c:4d <NONE>    3       web-0012345 ',
        'prod      db-0  db-0-a1b2c3    10.10.0.5 16:6e:1a:2b:3c:4d <NONE>    4       db-00123456 ',
        '',
      ].join('\n'),
    );
    const one = await antctl([
      '--mode',
      'agent',
      '--agent-address',
      address,
      'get',
      'pi',
      'db-0',
      '-n',
      'prod',
      '-o',
      'json',
    ]);
    expect(JSON.parse(one.out)).toEqual([
      {
        name: 'db-0',
        podNamespace: 'prod',
        interfaceName: 'db-0-a1b2c3',
        ips: ['10.10.0.5'],
        mac: '16:6e:1a:2b:3c:4d',
        ofPort: 4,
        containerID: 'db-00123456789abcdef',
      },
    ]);
  });

  it('get ovsflows prints one flow per line, and -T passes the table through', async () => {
    const all = await antctl(['--mode', 'agent', '--agent-address', address, 'get', 'ovsflows']);
    expect(all.code).toBe(0);
    const lines = all.out.split('\n');
    expect(lines[0]).toBe('');
    expect(lines.filter((l) => l.includes('table=')).length).toBe(SAMPLE_FLOWS.length);
    const t10 = await antctl(['--mode', 'agent', '--agent-address', address, 'get', 'of', '-T', '10']);
    expect(dumps.at(-1)).toEqual({ table: 10 });
    expect(
      t10.out
        .split('\n')
        .filter((l) => l !== '')
        .every((l) => l.includes('table=10')),
    ).toBe(true);
    const bad = await antctl([
      '--mode',
      'agent',
      '--agent-address',
      address,
      'get',
      'of',
      '-T',
      'NoSuchTable',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('unknown table NoSuchTable');
  });

  it("trace-packet sends -S/-D/-f to /ovstracing and prints OVS's trace as it is", async () => {
    const r = await antctl([
      '--mode',
      'agent',
      '--agent-address',
      address,
      'trace-packet',
      '-S',
      '192.0.2.1',
      '-D',
      'default/web-0',
      '-f',
      'tcp,tcp_dst=80',
    ]);
    expect(r.err).toBe('');
    const flow =
      'in_port=antrea-gw0,dl_src=be:ef:00:00:00:01,dl_dst=16:6e:1a:2b:3c:4d,tcp,tcp_dst=80,nw_ttl=64,nw_src=192.0.2.1,nw_dst=10.10.0.2';
    expect(traced).toEqual([flow]);
    expect(r.out).toBe(`Flow: ${flow}\n\nFinal flow: unchanged\nDatapath actions: 3\n`);
    const bad = await antctl([
      '--mode',
      'agent',
      '--agent-address',
      address,
      'trace-packet',
      '-D',
      'default/nope',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe('Error: Pod default/nope not found\n');
  });

  it("get ovsflows -G dumps groups, -S a Service's flows then its group", async () => {
    const base = ['--mode', 'agent', '--agent-address', address, 'get', 'of'];
    const all = await antctl([...base, '-G', 'all']);
    expect(all.err).toBe('');
    expect(all.out.split('\n').filter((l) => l.startsWith('group_id='))).toEqual([
      'group_id=4,type=select',
      'group_id=9,type=select,bucket=bucket_id:0,weight:100,actions=output:3',
    ]);
    const one = await antctl([...base, '-G', '4']);
    expect(one.out).toContain('group_id=4,type=select');
    expect(one.out).not.toContain('group_id=9');
    const svc = await antctl([...base, '-S', 'web', '-n', 'default']);
    expect(svc.err).toBe('');
    const lines = svc.out.split('\n').filter((l) => l !== '');
    expect(lines.at(-1)).toBe('group_id=9,type=select,bucket=bucket_id:0,weight:100,actions=output:3');
    expect(lines.filter((l) => l.includes(`table=${SAMPLE_FLOWS[0]!.flow.table}`)).length).toBeGreaterThan(0);
    // Only the Service's own flow, not the rest of its table (SAMPLE_FLOWS[1] shares table 10).
    const flowLines = lines.filter((l) => /\btable=\d+,/.test(l));
    expect(flowLines).toHaveLength(1);
    expect(flowLines[0]).toContain(`priority=${SAMPLE_FLOWS[0]!.flow.priority}`);
    expect(SAMPLE_FLOWS[1]!.flow.table).toBe(SAMPLE_FLOWS[0]!.flow.table);
    const missing = await antctl([...base, '-S', 'nope', '-n', 'default']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('Service default/nope has no flows on this Node');
  });

  it('version falls back to the version in agentinfo when /version is not served', async () => {
    const r = await antctl(['version', '--agent-address', address], { POD_NAME: 'antrea-agent-x7k2p' });
    expect(r.out).toBe('agentVersion: 0.1.0-antrea-ts\nantctlVersion: 0.1.0-antrea-ts\n');
  });

  it('get fqdncache against an agent API without the route (an older agent) says it is not served', async () => {
    // buildRestApi alone has no /fqdncache (registerAgentExtensions adds it): fastify's own 404.
    const r = await antctl(['--mode', 'agent', '--agent-address', address, 'get', 'fqdncache']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${address} does not serve fqdncache (404`);
    expect(r.err).toContain('this server version may not support the command');
  });

  it('says what to do when no agent listens', async () => {
    const r = await antctl(['--mode', 'agent', '--agent-address', 'http://127.0.0.1:1', 'get', 'agentinfo']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'cannot reach the Antrea agent API at http://127.0.0.1:1: is antrea-agent running on this Node?',
    );
  });
});
