import { type PodBed, run, startPodBed, waitFor } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The shared test bed on real OVS: what each Pod gets, that packets flow once flows allow them, and
// that stop leaves nothing behind.
const BR = 'br-bed';
const PODS = [
  { name: 'a', ip: '10.40.0.1', mac: '02:00:0a:28:00:01', ofport: 7 },
  { name: 'b', ip: '10.40.0.2', prefixLength: 16 },
] as const;

const netnsList = async () => (await run(['ip', 'netns', 'list'])).split('\n').map((l) => l.split(' ')[0]);

describe('startPodBed', () => {
  let bed: PodBed;

  beforeAll(async () => {
    bed = await startPodBed({ bridge: BR, protocols: ['OpenFlow13'], pods: PODS });
  }, 60_000);

  afterAll(async () => {
    await bed?.stop();
  });

  it('makes a secure netdev bridge with the asked OpenFlow versions', async () => {
    const get = async (column: string) => (await bed.ovs.vsctl(['get', 'bridge', BR, column])).trim();
    expect(await get('datapath_type')).toBe('netdev');
    expect(await get('fail_mode')).toBe('secure');
    expect(await get('protocols')).toBe('[OpenFlow13]');
  });

  it('wires each Pod: address, MAC, checksum offload off, host port on the bridge, ofport learned', async () => {
    const a = bed.pods.get('a')!;
    const b = bed.pods.get('b')!;
    expect(a.ofport).toBe(7);
    expect(b.ofport).toBeGreaterThan(0);
    expect(b.ofport).not.toBe(7);
    for (const pod of [a, b]) {
      const ofport = await bed.ovs.vsctl(['get', 'interface', pod.hostPort, 'ofport']);
      expect(Number(ofport)).toBe(pod.ofport);
      expect(await pod.netns.exec(['ethtool', '-k', 'eth0'])).toMatch(/^tx-checksumming: off/m);
    }
    expect(await a.netns.exec(['cat', '/sys/class/net/eth0/address'])).toBe(`${PODS[0].mac}\n`);
    expect(await b.netns.exec(['ip', '-o', '-4', 'addr', 'show', 'eth0'])).toContain('10.40.0.2/16');
  });

  it('passes packets only once flows allow them (fail_mode=secure)', async () => {
    const ping = (count: number) =>
      bed.pods.get('a')!.netns.exec(['ping', '-c', String(count), '-W', '3', PODS[1].ip]);
    await expect(ping(1)).rejects.toThrow();
    await bed.ovs.ofctl(['-O', 'OpenFlow13', 'add-flow', BR, 'priority=0,actions=NORMAL']);
    // The failed ARP above holds the first echo back about a second: later ones get through at once.
    await expect(ping(3)).resolves.toMatch(/ [1-3] received/);
  });

  it('runs a server in a Pod that the other Pod reaches', async () => {
    const b = bed.pods.get('b')!;
    const server = bed.runIn(b, 'greeter', ['socat', 'TCP-LISTEN:7000,fork,reuseaddr', 'SYSTEM:echo hi']);
    await waitFor('the greeter listening', async () => {
      server.assertRunning();
      return (await b.netns.exec(['ss', '-Htln', 'sport = :7000'])).trim() !== '';
    });
    const reply = await bed.pods
      .get('a')!
      .netns.exec(['socat', '-T', '3', '-', `TCP:${PODS[1].ip}:7000`], { input: '' });
    expect(reply).toBe('hi\n');
  });

  it('adds extra ports and learns their ofports', async () => {
    const port = `${bed.pods.get('a')!.hostPort}g`;
    expect(await bed.addPort(port, ['type=internal', 'ofport_request=32769'])).toBe(32769);
  });

  it('removes its netns and OVS on stop', async () => {
    const names = [...bed.pods.values()].map((p) => p.netns.name).concat(bed.ovs.netns);
    expect(await netnsList()).toEqual(expect.arrayContaining(names));
    const greeter = await bed.pods.get('b')!.netns.exec(['ss', '-Htlnp', 'sport = :7000']);
    expect(greeter).toContain('socat');
    await bed.stop();
    // The server was stopped before its netns went away (a process would keep the netns alive).
    await expect(run(['pgrep', '-f', 'TCP-LISTEN:7000,fork'])).rejects.toThrow();
    const left = await netnsList();
    for (const name of names) expect(left).not.toContain(name);
  });
});
