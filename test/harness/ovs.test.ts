import { existsSync } from 'node:fs';
import {
  createNetns,
  createVethPair,
  disableTxChecksumOffload,
  type Netns,
  type OvsInstance,
  run,
  startOvs,
  uniqueTag,
} from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('startOvs in a netns Node', () => {
  const tag = uniqueTag();
  let node: Netns;
  let pods: Netns[] = [];
  let ovs: OvsInstance;

  beforeAll(async () => {
    node = await createNetns(`ats-${tag}-node`);
    ovs = await startOvs({ netns: node.name });
  });

  afterAll(async () => {
    await ovs?.stop();
    for (const pod of pods) await pod.delete();
    await node?.delete();
  });

  it('runs its own ovsdb-server and ovs-vswitchd with a netdev bridge', async () => {
    await ovs.vsctl(['add-br', 'br-test', '--', 'set', 'bridge', 'br-test', 'datapath_type=netdev']);
    expect((await ovs.vsctl(['list-br'])).trim()).toBe('br-test');
    expect(existsSync(ovs.bridgeMgmtSocket('br-test'))).toBe(true);
    const dpType = await ovs.vsctl(['get', 'bridge', 'br-test', 'datapath_type']);
    expect(dpType.trim()).toBe('netdev');
    // The bridge's internal port is a tap inside the Node netns, not in the root namespace.
    await node.exec(['ip', 'link', 'show', 'br-test']);
    await expect(run(['ip', 'link', 'show', 'br-test'])).rejects.toThrow();
  });

  it('switches real packets between two netns Pods', async () => {
    pods = [await createNetns(`ats-${tag}-p1`), await createNetns(`ats-${tag}-p2`)];
    for (const [i, pod] of pods.entries()) {
      await createVethPair({ name: 'eth0', netns: pod.name }, { name: `veth${i}`, netns: node.name });
      await disableTxChecksumOffload('eth0', pod.name);
      await pod.exec(['ip', 'addr', 'add', `10.10.0.${i + 1}/24`, 'dev', 'eth0']);
      await ovs.vsctl(['add-port', 'br-test', `veth${i}`]);
    }
    await pods[0]!.exec(['ping', '-c', '2', '-W', '2', '10.10.0.2']);
    // Drop everything: the same ping must now fail.
    await ovs.ofctl(['del-flows', 'br-test']);
    await ovs.ofctl(['add-flow', 'br-test', 'priority=0,actions=drop']);
    await expect(pods[0]!.exec(['ping', '-c', '1', '-W', '1', '10.10.0.2'])).rejects.toThrow();
  });

  it('keeps the database across an ovs-vswitchd crash and restart', async () => {
    await ovs.restartVswitchd({ crash: true });
    expect((await ovs.vsctl(['list-br'])).trim()).toBe('br-test');
    // Flows live in ovs-vswitchd only: after a restart they are gone, which is why agents replay them.
    const flows = await ovs.ofctl(['dump-flows', 'br-test']);
    expect(flows).not.toContain('actions=drop');
  });

  it('removes its processes and run dir on stop', async () => {
    const runDir = ovs.runDir;
    await ovs.stop();
    expect(existsSync(runDir)).toBe(false);
    await expect(node.exec(['ip', 'link', 'show', 'br-test'])).rejects.toThrow();
  });
});
