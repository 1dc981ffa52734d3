// CNI ADD latency under a burst and Pod-to-Pod TCP throughput through the agent's pipeline, on a lab
// of netns Nodes with userspace OVS (needs root, OVS and the kube binaries, like the integration tests).
//   npm run bench:cni -w @antrea-ts/agent [-- --json] [-- --pods N] [-- --seconds S] [-- --rounds R] [-- --part adds|throughput]
// --json prints one line per measurement: {"bench","case","metric","value","unit"}.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  Agent,
  HostLocalIpam,
  InformerNodeSource,
  inNetnsPath,
  ipInNetns,
  makeConfig,
  netnsPathExists,
  OfConnection,
  podSideBatch,
  ShellCommandRunner,
  vethLine,
} from '@antrea-ts/agent';
import { socketAgentConnector } from '@antrea-ts/cni';
import {
  BenchReport,
  createNetns,
  createNetnsNode,
  createUnderlay,
  createVethPair,
  disableTxChecksumOffload,
  freePort,
  type KubeCluster,
  makeTempDir,
  type Netns,
  type NetnsNode,
  startKube,
  type TempDir,
  uniqueTag,
} from '@antrea-ts/harness';
import { OvsBridgeClient, OvsdbRpcClient } from '@antrea-ts/ovsdb';
import { pino } from 'pino';
import { cpuSince, treeCpu } from './process-cpu.js';
import type { GrpcRequest, SpawnReply, SpawnRequest } from './spawner.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const LAUNCHER = `${root}cmd/antrea-cni/antrea-cni`;
const CONF = JSON.stringify({
  cniVersion: '1.0.0',
  name: 'antrea',
  type: 'antrea',
  ipam: { type: 'host-local' },
});
const enc = new TextEncoder();

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const arg = (name: string, dflt: number) => {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const PODS = arg('--pods', 30);
const SECONDS = arg('--seconds', 4);
const ROUNDS = arg('--rounds', 5);
/** `adds` (the ADD/DEL bursts), `throughput` (iperf3), or both (default). */
const PART = argv.includes('--part') ? argv[argv.indexOf('--part') + 1] : 'all';
const logAt = argv.indexOf('--log-level');
const logger = pino({ level: logAt >= 0 ? (argv[logAt + 1] ?? 'info') : 'silent' }, pino.destination(2));

const bench = new BenchReport('cni', json);
const report = bench.record.bind(bench);

interface BenchNode {
  node: NetnsNode;
  agent: Agent;
  ovsdb: OvsdbRpcClient;
  of: OfConnection;
  dir: TempDir;
  socket: string;
  runners: ShellCommandRunner[];
  /** Agent-side CNI durations (request in to reply out, as antrea_agent_cni_request_duration_seconds sees them), ms. */
  agentMs: number[];
}

async function startNode(
  kube: KubeCluster,
  underlay: Awaited<ReturnType<typeof createUnderlay>>,
  name: string,
  podCidr: string,
): Promise<BenchNode> {
  const node = await createNetnsNode({ name, underlay });
  const nodeName = `${name}-${uniqueTag()}`;
  await kube.kubectl(['create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: nodeName },
      spec: { podCIDR: podCidr, podCIDRs: [podCidr] },
    }),
  });
  await kube.kubectl([
    'patch',
    'node',
    nodeName,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { addresses: [{ type: 'InternalIP', address: node.nodeIp }] } }),
  ]);
  const dir = makeTempDir('agent-bench');
  const socket = join(dir.path, 'cni.sock');
  const config = makeConfig({
    nodeName,
    datapathType: 'netdev',
    cniSocket: socket,
    apiPort: await freePort(),
    apiLoopbackTokenPath: join(dir.path, 'loopback-client-token'),
    cniBinDir: '/usr/lib/cni',
    hostLocalDataDir: join(dir.path, 'ipam'),
  });
  const ovsdb = new OvsdbRpcClient({ endpoint: `unix:${node.ovs.dbSocket}`, logger });
  await ovsdb.start();
  const of = new OfConnection({ socketPath: node.ovs.bridgeMgmtSocket('br-int'), logger });
  of.start();
  const runners = [new ShellCommandRunner({ netns: node.netns.name }), new ShellCommandRunner()];
  const agentMs: number[] = [];
  const agent = new Agent({
    onCniCommand: (_command, seconds) => agentMs.push(seconds * 1000),
    config,
    logger,
    bridges: new OvsBridgeClient(ovsdb, { logger }),
    ovsdb,
    sw: of,
    nodeRunner: runners[0]!,
    pluginRunner: runners[1]!,
    nodes: new InformerNodeSource(kube.kubeConfig, logger),
    randomBytes,
    netnsExists: netnsPathExists,
  });
  await agent.start();
  return { node, agent, ovsdb, of, dir, socket, runners, agentMs };
}

async function stopNode(n: BenchNode): Promise<void> {
  await n.agent.stop();
  await n.of.stop();
  await n.ovsdb.stop();
  for (const r of n.runners) r.stop();
  await n.node.delete();
  n.dir.remove();
}

function args(containerId: string, netns: string, pod: string) {
  return {
    containerId,
    netns,
    ifname: 'eth0',
    args: `IgnoreUnknown=1;K8S_POD_NAMESPACE=bench;K8S_POD_NAME=${pod}`,
    path: '/usr/lib/cni',
    networkConfiguration: enc.encode(CONF),
  };
}

/** Starts processes through the spawner child and returns their spawn-to-exit times. */
class Spawner {
  private readonly child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./spawner.js', import.meta.url))],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  private readonly waiting = new Map<number, (r: SpawnReply) => void>();
  private next = 1;

  private exited: Error | undefined;

  constructor() {
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      const r = JSON.parse(line) as SpawnReply;
      this.waiting.get(r.id)?.(r);
      this.waiting.delete(r.id);
    });
    // A spawner that dies must fail the benchmark, not leave it waiting forever.
    this.child.on('exit', (code, signal) => {
      this.exited = new Error(`spawner exited (code ${code}, signal ${signal})`);
      for (const done of this.waiting.values()) done({ id: 0, ms: 0, code: -1, stdout: this.exited.message });
      this.waiting.clear();
    });
  }

  /** Runs `cmd` to completion; rejects on a non-zero exit. Resolves to the spawn-to-exit time (ms). */
  run(cmd: string, args: string[], env: Record<string, string>, stdin: string): Promise<number> {
    return this.request({
      kind: 'spawn',
      cmd,
      args,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdin,
    });
  }

  /** Makes one CNI call to the agent from the spawner; resolves to the connect-to-reply time (ms). */
  grpc(socket: string, command: GrpcRequest['command'], args: GrpcRequest['args']): Promise<number> {
    return this.request({ kind: 'grpc', socket, command, args });
  }

  private request(req: Omit<SpawnRequest, 'id'> | Omit<GrpcRequest, 'id'>): Promise<number> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (r) =>
        r.code === 0 ? resolve(r.ms) : reject(new Error(`${req.kind} failed (${r.code}): ${r.stdout}`)),
      );
      this.child.stdin!.write(`${JSON.stringify({ ...req, id })}\n`);
    });
  }

  /** For CPU accounting: the spawner's subtree is the plugins' side. */
  get pids(): number[] {
    return this.child.pid === undefined ? [] : [this.child.pid];
  }

  stop(): void {
    this.child.stdin!.end();
  }
}

const spawner = new Spawner();

function reportLatencies(c: string, lat: number[], total?: number): void {
  bench.recordPercentiles(c, lat, { p50: 50, p99: 99 }, 'ms');
  if (total !== undefined) report(c, 'total', total, 'ms');
}

/** The floor under any Node.js plugin: PODS concurrent `node -e 0`, started the same way. */
async function nodeFloor(): Promise<void> {
  const cpu0 = treeCpu(spawner.pids);
  const t0 = performance.now();
  const lat = await Promise.all(
    Array.from({ length: PODS }, () => spawner.run(process.execPath, ['-e', '0'], {}, '')),
  );
  const c = `node-start-${PODS}-concurrent (floor)`;
  reportLatencies(c, lat, performance.now() - t0);
  report(`${c} cpu-per-pod`, 'plugins', cpuSince(cpu0, spawner.pids).plugins / PODS, 'ms');
}

/**
 * The floor under the agent's ADD on this machine: the processes every Pod needs whatever the agent
 * does (host-local for its address, `ethtool` for the Pod end's checksum offload, `ip` for the Pod
 * side), for PODS Pods at once through the agent's command runner, after one shared `ip -batch` that
 * makes their veth pairs. No OVS, no gRPC, no agent: if this alone is over the target, so is ADD.
 */
async function commandsFloor(n: BenchNode, ethtool: boolean): Promise<void> {
  const runner = new ShellCommandRunner({ netns: n.node.netns.name });
  const dir = makeTempDir('agent-bench-floor');
  const ipam = new HostLocalIpam(runner, {
    binDir: '/usr/lib/cni',
    dataDir: dir.path,
    podCidr: '10.71.0.0/24',
    gatewayIp: '10.71.0.1',
  });
  const pods: Netns[] = await Promise.all(
    Array.from({ length: PODS }, (_, i) => createNetns(`ats-${uniqueTag()}-f${i}`)),
  );
  const path = (i: number) => `/var/run/netns/${pods[i]!.name}`;
  const mac = (i: number, side: number) =>
    `02:00:00:71:${side.toString(16).padStart(2, '0')}:${i.toString(16).padStart(2, '0')}`;
  try {
    const cpu0 = treeCpu(spawner.pids);
    const t0 = performance.now();
    const links = runner.run(['ip', '-batch', '-'], {
      input: `${pods
        .map((_, i) =>
          vethLine({
            hostIfName: `fl${i}`,
            hostMac: mac(i, 1),
            ifName: 'eth0',
            mac: mac(i, 2),
            mtu: 1450,
            netns: path(i),
          }),
        )
        .join('\n')}\n`,
    });
    const lat = await Promise.all(
      pods.map(async (_, i) => {
        const [ip] = await Promise.all([
          ipam.add(`floor${i}`, 'eth0', path(i)),
          links.then(() =>
            ethtool ? runner.run(inNetnsPath(path(i), ['ethtool', '-K', 'eth0', 'tx', 'off'])) : undefined,
          ),
        ]);
        await runner.run(ipInNetns(path(i), ['-batch', '-']), {
          input: podSideBatch({ ifName: 'eth0', address: ip.address, gateway: ip.gateway }),
        });
        return performance.now() - t0;
      }),
    );
    const cpu = cpuSince(cpu0, spawner.pids);
    const c = `per-pod-commands-${PODS}-concurrent${ethtool ? '' : '-without-ethtool'} (floor)`;
    reportLatencies(c, lat, performance.now() - t0);
    report(`${c} cpu-per-pod`, 'commands', cpu.commands / PODS, 'ms');
  } finally {
    runner.stop();
    for (const p of pods) await p.delete();
    dir.remove();
  }
}

/** PODS concurrent ADDs on one Node, then DELs; `via`: gRPC calls from the spawner process, or the plugin binary. */
async function burst(n: BenchNode, via: 'grpc' | 'plugin'): Promise<void> {
  const pods: Netns[] = await Promise.all(
    Array.from({ length: PODS }, (_, i) => createNetns(`ats-${uniqueTag()}-b${i}`)),
  );
  const one = async (cmd: 'ADD' | 'DEL', i: number): Promise<number> => {
    const id = `bench${via}${i}`;
    const path = `/var/run/netns/${pods[i]!.name}`;
    if (via === 'grpc')
      return spawner.grpc(n.socket, cmd, { ...args(id, path, `p${i}`), networkConfiguration: CONF });
    return spawner.run(
      LAUNCHER,
      [],
      {
        CNI_COMMAND: cmd,
        CNI_CONTAINERID: id,
        CNI_NETNS: path,
        CNI_IFNAME: 'eth0',
        CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=bench;K8S_POD_NAME=p${i}`,
        CNI_PATH: '/usr/lib/cni',
        ANTREA_CNI_SOCKET: n.socket,
      },
      CONF,
    );
  };
  try {
    for (const cmd of ['ADD', 'DEL'] as const) {
      n.agentMs.length = 0;
      const cpu0 = treeCpu(spawner.pids);
      const t0 = performance.now();
      const lat = await Promise.all(pods.map((_, i) => one(cmd, i)));
      const total = performance.now() - t0;
      const cpu = cpuSince(cpu0, spawner.pids);
      const c = `${cmd.toLowerCase()}-${PODS}-concurrent-${via}`;
      // What the caller sees (for `plugin`: kubelet's view, starting the plugin process included).
      reportLatencies(`${c} end-to-end`, lat, total);
      reportLatencies(`${c} agent-side`, n.agentMs);
      // CPU per Pod, by kind of process: what the machine's load does not change much.
      for (const [kind, ms] of Object.entries(cpu)) report(`${c} cpu-per-pod`, kind, ms / PODS, 'ms');
    }
  } finally {
    for (const p of pods) await p.delete();
  }
}

async function iperf(server: Netns, client: Netns, ip: string): Promise<number> {
  const srv = spawn('ip', ['netns', 'exec', server.name, 'iperf3', '-s', '-1', '-p', '5201'], {
    stdio: 'ignore',
  });
  // Listen for the one-off server's exit now: it may exit before the client's close is handled.
  const srvClosed = new Promise((r) => srv.once('close', r));
  await new Promise((r) => setTimeout(r, 300));
  const out = await new Promise<string>((resolve, reject) => {
    const c = spawn('ip', [
      'netns',
      'exec',
      client.name,
      'iperf3',
      '-c',
      ip,
      '-p',
      '5201',
      '-t',
      String(SECONDS),
      // Leave TCP slow start out of the average.
      '-O',
      '1',
      '-J',
    ]);
    let s = '';
    c.stdout.on('data', (d: Buffer) => {
      s += d;
    });
    c.on('close', (code) => (code === 0 ? resolve(s) : reject(new Error(`iperf3 exit ${code}`))));
  });
  await srvClosed;
  const bits = (JSON.parse(out) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received
    .bits_per_second;
  return bits / 1e6;
}

/** A bridge of the Node's OVS with two namespaces (client, server) on `prefix`.1 and .2. */
async function referenceBridge(
  n: BenchNode,
  bridge: string,
  prefix: string,
  made: Netns[],
): Promise<{ client: Netns; server: Netns; serverIp: string }> {
  await n.node.ovs.vsctl(['add-br', bridge, '--', 'set', 'bridge', bridge, 'datapath_type=netdev']);
  const ends: Netns[] = [];
  for (const i of [1, 2]) {
    const ns = await createNetns(`ats-${uniqueTag()}-r${i}`);
    made.push(ns);
    ends.push(ns);
    const host = `nb${uniqueTag()}`;
    await createVethPair(
      { name: 'eth0', netns: ns.name, mtu: 1450 },
      { name: host, netns: n.node.netns.name },
    );
    await disableTxChecksumOffload('eth0', ns.name);
    await ns.exec(['ip', 'addr', 'add', `${prefix}.${i}/24`, 'dev', 'eth0']);
    await n.node.ovs.vsctl(['add-port', bridge, host]);
  }
  return { client: ends[0]!, server: ends[1]!, serverIp: `${prefix}.2` };
}

/** Two Pods on br-int (our pipeline) against reference bridges of the same OVS. */
async function throughput(n1: BenchNode, n2: BenchNode): Promise<void> {
  const made: Netns[] = [];
  const addPod = async (n: BenchNode, name: string): Promise<{ ns: Netns; ip: string }> => {
    const ns = await createNetns(`ats-${uniqueTag()}-${name}`);
    made.push(ns);
    const c = await socketAgentConnector({ socketPath: n.socket, timeoutMs: 60_000 }).connect();
    const res = JSON.parse(
      new TextDecoder().decode(await c.command('ADD', args(`tp${name}`, `/var/run/netns/${ns.name}`, name))),
    ) as {
      ips: Array<{ address: string }>;
    };
    return { ns, ip: res.ips[0]!.address.split('/')[0]! };
  };
  try {
    const a = await addPod(n1, 'tpa');
    const b = await addPod(n1, 'tpb');
    const c = await addPod(n2, 'tpc');
    await a.ns.exec(['ping', '-c', '2', '-W', '1', c.ip]).catch(() => undefined);
    const cross = await iperf(c.ns, a.ns, c.ip);
    report('iperf3-cross-node-geneve', 'throughput', cross, 'Mbit/s');

    // References in the same ovs-vswitchd, veths with the same offload setting: a plain NORMAL bridge,
    // and a NORMAL bridge that also sends every IP packet through conntrack as our pipeline does
    // (ct() to track, ct(commit) for new connections): what is left between that one and our pipeline
    // is the pipeline's own cost.
    const ovs = n1.node.ovs;
    const normal = await referenceBridge(n1, 'br-normal', '192.168.77', made);
    const tracked = await referenceBridge(n1, 'br-ct', '192.168.78', made);
    await ovs.ofctl(['del-flows', 'br-ct']);
    for (const flow of [
      'table=0,priority=10,ip,actions=ct(table=1,zone=65520)',
      'table=0,priority=0,actions=NORMAL',
      'table=1,priority=10,ip,ct_state=+trk+new,actions=ct(commit,zone=65520),NORMAL',
      'table=1,priority=0,actions=NORMAL',
    ])
      await ovs.ofctl(['add-flow', 'br-ct', flow]);
    // Rounds rotate the three cases so that load from elsewhere on the machine hits all alike; the
    // ratio is taken within each round (neighbours' load drifts more slowly than a round) and the
    // median over rounds is reported, with the spread.
    const cases = [
      { name: 'pipeline', run: () => iperf(b.ns, a.ns, b.ip) },
      { name: 'normal-bridge', run: () => iperf(normal.server, normal.client, normal.serverIp) },
      {
        name: 'normal-bridge-with-conntrack',
        run: () => iperf(tracked.server, tracked.client, tracked.serverIp),
      },
    ];
    const results = new Map(cases.map((c) => [c.name, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(round + k) % cases.length]!;
        results.get(c.name)!.push(await c.run());
      }
    }
    for (const [name, mbps] of results)
      bench.recordPercentiles(`iperf3-same-node-${name}`, mbps, { 'throughput-median': 50 }, 'Mbit/s');
    const pipes = results.get('pipeline')!;
    for (const ref of ['normal-bridge', 'normal-bridge-with-conntrack']) {
      const ratios = pipes.map((p, i) => p / results.get(ref)![i]!);
      const c = `iperf3-same-node-pipeline-to-${ref}`;
      bench.recordPercentiles(c, ratios, { 'ratio-median': 50, 'ratio-min': 0, 'ratio-max': 100 }, 'x');
    }
    await ovs.vsctl(['del-br', 'br-normal', '--', 'del-br', 'br-ct']);
  } finally {
    for (const ns of made) await ns.delete();
  }
}

async function main(): Promise<void> {
  const underlay = await createUnderlay();
  const kube = await startKube({ logger });
  const nodes: BenchNode[] = [];
  try {
    nodes.push(await startNode(kube, underlay, 'bn1', '10.70.0.0/23'));
    nodes.push(await startNode(kube, underlay, 'bn2', '10.70.2.0/23'));
    if (PART !== 'throughput') {
      await nodeFloor();
      await commandsFloor(nodes[0]!, true);
      await commandsFloor(nodes[0]!, false);
      await burst(nodes[0]!, 'grpc');
      await burst(nodes[0]!, 'plugin');
    }
    if (PART !== 'adds') await throughput(nodes[0]!, nodes[1]!);
  } finally {
    bench.finish();
    spawner.stop();
    for (const n of nodes) await stopNode(n);
    await kube.stop();
    await underlay.delete();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
