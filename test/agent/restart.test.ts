import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type KubeCluster, waitFor } from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addPod,
  cniEnv,
  type Lab,
  type LabNode,
  type LabPod,
  NET_CONF,
  ping,
  runCni,
  startAgent,
  startLab,
  stopAgent,
} from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

async function flowLines(n: LabNode): Promise<string[]> {
  const out = await n.node.ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', '--no-stats', 'br-int']);
  return (
    out
      .split('\n')
      .map((l) => l.trim())
      // The round number in cookies changes across restarts; compare the rest.
      .map((l) => l.replace(/^cookie=0x[0-9a-f]+, /, ''))
      .filter((l) => l && !l.startsWith('OFPST'))
      .sort()
  );
}

async function ports(n: LabNode): Promise<string[]> {
  return (await n.node.ovs.vsctl(['list-ports', 'br-int'])).split('\n').filter(Boolean).sort();
}

describe('agent and ovs-vswitchd restarts with live Pods', () => {
  let lab: Lab | undefined;
  let kube: KubeCluster;
  let nodes: LabNode[] = [];
  let pods: LabPod[] = [];

  beforeAll(async () => {
    lab = await startLab(
      [
        { name: 'r1', podCidr: '10.20.1.0/24' },
        { name: 'r2', podCidr: '10.20.2.0/24' },
      ],
      logger,
    );
    ({ kube, nodes, pods } = lab);
    pods.push(await addPod(nodes[0]!, 'a1'), await addPod(nodes[0]!, 'a2'), await addPod(nodes[1]!, 'b1'));
  });

  afterAll(async () => {
    await lab?.stop();
  });

  it('keeps connectivity while the agent is down and after it restarts, with no duplicate ports or flows', async () => {
    const [a1, a2, b1] = pods as [LabPod, LabPod, LabPod];
    const n1 = nodes[0]!;
    expect(await ping(a1.netns, b1.ip)).toBe(true);
    const flowsBefore = await flowLines(n1);
    const portsBefore = await ports(n1);
    const roundBefore = n1.agent!.runtime.round;

    await stopAgent(n1);
    expect(await ping(a1.netns, b1.ip)).toBe(true);

    const agent = await startAgent(n1, kube, logger);
    expect(agent.runtime.round).toBe(roundBefore + 1);
    expect(
      agent.store
        .list()
        .map((p) => p.containerId)
        .sort(),
    ).toEqual([a1.containerId, a2.containerId].sort());
    expect(await ports(n1)).toEqual(portsBefore);
    expect(await flowLines(n1)).toEqual(flowsBefore);
    // No flow is left with the old round's cookie.
    const cookies = (await n1.node.ovs.ofctl(['-O', 'OpenFlow15', 'dump-flows', 'br-int']))
      .split('\n')
      .flatMap((l) => /cookie=0x([0-9a-f]+)/.exec(l)?.[1] ?? []);
    expect(cookies.every((c) => BigInt(`0x${c}`) >> 48n === BigInt(agent.runtime.round))).toBe(true);
    expect(await ping(a1.netns, b1.ip)).toBe(true);
    expect(await ping(a1.netns, a2.ip)).toBe(true);
  });

  it('releases, at restart, a Pod whose netns went away while the agent was down', async () => {
    const n1 = nodes[0]!;
    const gone = await addPod(n1, 'gone');
    const hostIf = n1.agent!.store.get(gone.containerId)!.hostIfName;
    await stopAgent(n1);
    await gone.netns.delete();
    const agent = await startAgent(n1, kube, logger);
    expect(agent.store.get(gone.containerId)).toBeUndefined();
    expect(await ports(n1)).not.toContain(hostIf);
    expect(await flowLines(n1)).not.toContainEqual(expect.stringContaining(`nw_src=${gone.ip}`));
    expect(readdirSync(join(n1.config.hostLocalDataDir!, 'antrea'))).not.toContain(gone.ip);
  });

  it('serves CHECK and DEL for Pods added before the restart', async () => {
    const [, a2] = pods as [LabPod, LabPod];
    const n1 = nodes[0]!;
    const path = `/var/run/netns/${a2.netns.name}`;
    const check = await runCni(
      cniEnv(n1, 'CHECK', a2.containerId, path, a2.name),
      JSON.stringify({ ...JSON.parse(NET_CONF), prevResult: { cniVersion: '1.0.0', ips: [] } }),
    );
    expect(check.code).toBe(0);
    const del = await runCni(cniEnv(n1, 'DEL', a2.containerId, path, a2.name), NET_CONF);
    expect(del.code).toBe(0);
    expect(n1.agent!.store.get(a2.containerId)).toBeUndefined();
    expect((await ports(n1)).length).toBe(3);
    expect(await a2.netns.exec(['ip', 'link', 'show', 'eth0']).catch(() => 'gone')).toBe('gone');
  });

  it('replays every flow after ovs-vswitchd restarts, and connectivity returns', async () => {
    const [a1, , b1] = pods as [LabPod, LabPod, LabPod];
    const n1 = nodes[0]!;
    const flowsBefore = await flowLines(n1);
    const started = performance.now();
    await n1.node.ovs.restartVswitchd({ crash: true });
    await waitFor(
      'connectivity after ovs-vswitchd restart',
      async () => a1.netns.exec(['ping', '-c', '1', '-W', '1', b1.ip]).then(() => true),
      30_000,
      50,
    );
    const gapMs = performance.now() - started;
    expect(await flowLines(n1)).toEqual(flowsBefore);
    // Measured, not asserted: printed for the report.
    logger.info({ gapMs, replayMs: n1.agent!.lastReplayDurationMs }, 'ovs-vswitchd restart gap');
    process.stdout.write(
      `ovs-vswitchd restart: connectivity back after ${Math.round(gapMs)} ms (replay ${Math.round(n1.agent!.lastReplayDurationMs ?? -1)} ms)\n`,
    );
    expect(await ping(b1.netns, a1.ip)).toBe(true);
  });
});
