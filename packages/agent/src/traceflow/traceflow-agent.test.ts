import type { Traceflow, TraceflowNodeResult } from '@antrea-ts/apis';
import type { Flow, PacketIn2, PacketOut } from '@antrea-ts/openflow';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PodInterface } from '../cniserver/interface-store.js';
import { CookieAllocator } from '../openflow/cookie.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import { DEFAULT_FEATURES, Pipeline } from '../openflow/pipeline.js';
import type { TraceflowApi, TraceflowHandlers } from './kube-traceflow-api.js';
import { parseTracePacket } from './packet.js';
import { TraceflowAgent } from './traceflow-agent.js';

/** The features with AntreaProxy on, whether or not the defaults have it yet. */
const proxyPipeline = new Pipeline(new Set([...DEFAULT_FEATURES, 'service']));
const pod = (name: string, ofport: number, ip: string): PodInterface => ({
  containerId: name,
  podName: name,
  podNamespace: 'x',
  hostIfName: name,
  ifName: 'eth0',
  netns: '',
  ipCidr: `${ip}/24`,
  ip,
  mac: `02:00:00:00:00:0${ofport}`,
  ofport,
});

/** The agent's collaborators, recorded: flows per owner, packet-outs, results. */
function setup(pipeline = proxyPipeline) {
  const owners = new Map<string, readonly Flow[]>();
  const flows = {
    replace: async (owner: string, f: readonly Flow[]) => void owners.set(owner, f),
    remove: async (owner: string) => void owners.delete(owner),
    all: () => [...owners.values()].flat(),
  } as unknown as FlowCache;
  const packets: PacketOut[] = [];
  const results: Array<{ name: string; result: TraceflowNodeResult }> = [];
  const failures: Array<{ name: string; reason: string }> = [];
  let handlers: TraceflowHandlers | undefined;
  const api: TraceflowApi = {
    watch: async (h) => {
      handlers = h;
    },
    stop: async () => {},
    appendResult: async (name, result) => void results.push({ name, result }),
    fail: async (name, reason) => void failures.push({ name, reason }),
    podIp: async (_ns, name) => (name === 'remote' ? '10.10.2.9' : undefined),
    service: async (ns, name) =>
      ns === 'x' && name === 'web'
        ? { clusterIps: ['10.96.0.10'], ports: [{ port: 8080, protocol: 'TCP' }] }
        : undefined,
  };
  const agent = new TraceflowAgent({
    nodeName: 'n1',
    api,
    flows,
    ctx: { pipeline, cookies: new CookieAllocator(1) },
    node: {
      gatewayOfport: 32769,
      gatewayIp: '10.10.1.1',
      gatewayMac: '02:00:00:00:00:01',
      tunnelOfport: 32768,
    },
    pods: () => [pod('a', 5, '10.10.1.5'), pod('b', 6, '10.10.1.6')],
    packetOut: async (po) => void packets.push(po),
    logger: pino({ level: 'silent' }),
  });
  const running = (name: string, tag: number, dst: string): Traceflow => ({
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'Traceflow',
    metadata: { name },
    spec: { source: { namespace: 'x', pod: 'a' }, destination: { namespace: 'x', pod: dst } },
    status: { phase: 'Running', dataplaneTag: tag },
  });
  const settle = () => vi.advanceTimersByTimeAsync(0);
  return { agent, owners, packets, results, failures, running, settle, handlers: () => handlers! };
}

afterEach(() => void vi.useRealTimers());

describe('TraceflowAgent', () => {
  it('injects once for a local destination, up to 5 fresh copies for a remote one until it ends', async () => {
    vi.useFakeTimers();
    const t = setup();
    await t.agent.start();
    t.handlers().upsert(t.running('local', 7, 'b'));
    await t.settle();
    expect(t.packets).toHaveLength(1);
    expect(t.packets[0]).toMatchObject({ inPort: 5, actions: [{ type: 'output', port: 0xfffffff9 }] });
    expect(parseTracePacket(t.packets[0]!.packet)).toMatchObject({ tag: 7, dstIp: '10.10.1.6', protocol: 1 });
    t.handlers().upsert(t.running('remote', 11, 'remote'));
    await t.settle();
    await vi.advanceTimersByTimeAsync(10_000);
    const remote = t.packets.slice(1).map((p) => parseTracePacket(p.packet)!);
    expect(remote).toHaveLength(5);
    expect(new Set(remote.map((p) => p.icmpId)).size).toBe(5);
    // Ending early stops the copies.
    t.handlers().upsert(t.running('remote2', 15, 'remote'));
    await vi.advanceTimersByTimeAsync(600);
    t.handlers().upsert({ ...t.running('remote2', 15, 'remote'), status: { phase: 'Succeeded' } });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.packets).toHaveLength(1 + 5 + 2);
    expect([...t.owners.keys()].sort()).toEqual(['traceflow/11', 'traceflow/7']);
  });

  it('reports one result per Traceflow and Node, and hands a reused tag to the new Traceflow', async () => {
    const t = setup();
    await t.agent.start();
    t.handlers().upsert(t.running('first', 7, 'b'));
    await new Promise((r) => setTimeout(r, 0));
    const packetIn = (frame: Buffer, tableName: 'Output'): PacketIn2 => ({
      packet: frame,
      tableId: proxyPipeline.id(tableName),
      metadata: [{ field: 'reg1', value: 6n }],
      userdata: Buffer.from([4]),
    });
    const frame = t.packets[0]!.packet;
    await t.agent.handlePacketIn(packetIn(frame, 'Output'));
    await t.agent.handlePacketIn(packetIn(frame, 'Output'));
    expect(t.results).toEqual([
      {
        name: 'first',
        result: expect.objectContaining({
          node: 'n1',
          role: 'sender',
          observations: [
            { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: '10.10.1.5' },
            { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'x/b' },
          ],
        }),
      },
    ]);
    // The controller gave tag 7 to another Traceflow before this Node heard that "first" ended.
    t.handlers().upsert(t.running('second', 7, 'b'));
    await new Promise((r) => setTimeout(r, 0));
    await t.agent.handlePacketIn(packetIn(t.packets[1]!.packet, 'Output'));
    expect(t.results.map((r) => r.name)).toEqual(['first', 'second']);
    t.handlers().remove('first');
    expect([...t.owners.keys()]).toEqual(['traceflow/7']);
    t.handlers().remove('second');
    await new Promise((r) => setTimeout(r, 0));
    expect(t.owners.size).toBe(0);
  });

  it('a Service destination: the packet goes to the ClusterIP through the gateway MAC, on the Service’s port', async () => {
    const t = setup();
    await t.agent.start();
    const tf = t.running('svc', 19, 'b');
    tf.spec.destination = { namespace: 'x', service: 'web' };
    tf.spec.packet = { transportHeader: { tcp: {} } };
    t.handlers().upsert(tf);
    await new Promise((r) => setTimeout(r, 0));
    expect(t.failures).toEqual([]);
    const frame = t.packets[0]!.packet;
    expect(frame.subarray(0, 6).toString('hex')).toBe('020000000001');
    expect(parseTracePacket(frame)).toMatchObject({
      tag: 19,
      dstIp: '10.96.0.10',
      protocol: 6,
      dstPort: 8080,
    });
    // Live traffic to the Service: the source Pod's new connections to the ClusterIP get the tag.
    const live = t.running('live', 21, 'b');
    live.spec = { ...tf.spec, liveTraffic: true };
    t.handlers().upsert(live);
    await new Promise((r) => setTimeout(r, 0));
    const tagging = t.owners.get('traceflow/21')?.find((f) => f.match.some((m) => m.field === 'in_port'));
    expect(tagging?.match).toContainEqual(expect.objectContaining({ field: 'nw_dst', value: 0x0a60000an }));
    await t.agent.stop();
  });

  it('fails a Traceflow it should send but cannot, with the Node and the error as reason', async () => {
    const reasons: string[] = [];
    for (const [service, pipe] of [
      ['web', new Pipeline(new Set(['podConnectivity', 'networkPolicy']))],
      ['gone', proxyPipeline],
    ] as const) {
      const t = setup(pipe);
      await t.agent.start();
      const tf = t.running('svc', 19, 'b');
      tf.spec.destination = { namespace: 'x', service };
      t.handlers().upsert(tf);
      await new Promise((r) => setTimeout(r, 0));
      expect(t.packets).toHaveLength(0);
      reasons.push(...t.failures.map((f) => `${f.name}: ${f.reason}`));
    }
    expect(reasons).toEqual([
      'svc: Node: n1, error: using Service destination requires AntreaProxy enabled',
      'svc: Node: n1, error: failed to get the destination Service x/gone: not found',
    ]);
  });
});
