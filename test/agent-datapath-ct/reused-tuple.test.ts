// Userspace OVS conntrack (netdev datapath) and a 5-tuple reused after a SYN that was committed but
// never answered: the shape of a cross-Node connection that a policy dropped on the server's Node
// (the client's Node commits the SYN, the server's Node drops it), then allowed. No agent here, on
// purpose: a bare bridge with the pipeline's conntrack shape (ct() in one zone first, `+inv` dropped,
// `+new` committed, then a "policy" table) shows that what the lab hit is the conntrack itself.
// These tests pin OVS's behaviour as installed (3.1 here; lib/conntrack-tcp.c is unchanged on OVS
// main): when one of them starts failing, OVS changed and packages/agent/src/networkpolicy/README.md
// ("Userspace OVS conntrack and reused 5-tuples") must be revisited.
import { type PodBed, type PodBedPod, startPodBed, waitFor } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Close, entryState, tcpAttempt } from './conntrack-probe.js';

const BR = 'br-ct';
const ZONE = 9;
const CLIENT_IP = '10.30.0.1';
const SERVER_IP = '10.30.0.2';
const SERVER_PORT = 80;
const GREETING = 'hello\n';
// The bare pipeline: conntrack first, invalid dropped, new connections committed, then the policy
// table (table 2) where a denied SYN is dropped after the commit, as on the client's Node.
const PIPELINE = [
  `table=0,priority=100,ip,actions=ct(table=1,zone=${ZONE})`,
  'table=0,priority=50,arp,actions=NORMAL',
  'table=1,priority=200,ct_state=+inv+trk,ip,actions=drop',
  // The commit marks its entries (like ConnSourceCTMark); a +new SYN that already carries the mark
  // is one that re-opened an existing entry: counted apart, same action.
  `table=1,priority=150,ct_state=+new+trk,ct_mark=1,tcp,actions=ct(commit,zone=${ZONE},table=2)`,
  `table=1,priority=100,ct_state=+new+trk,ip,actions=ct(commit,zone=${ZONE},table=2,exec(set_field:1->ct_mark))`,
  'table=1,priority=90,ip,actions=goto_table:2',
  'table=2,priority=0,actions=NORMAL',
];
const DENY = `table=2,priority=100,ct_state=+new+trk,tcp,nw_dst=${SERVER_IP},tp_dst=${SERVER_PORT}`;

describe('userspace conntrack: a 5-tuple reused after an unanswered committed SYN', () => {
  let bed: PodBed;
  let client: PodBedPod;
  let server: PodBedPod;
  let nextPort = 41_000;

  const attempt = (fromPort: number, close: Close) =>
    tcpAttempt(client.netns.name, `${SERVER_IP}:${SERVER_PORT}`, fromPort, close);
  const stateOf = async (fromPort: number) =>
    entryState(await bed.ovs.appctl(['dpctl/dump-conntrack', `zone=${ZONE}`]), fromPort);
  const packets = async (match: string): Promise<number> => {
    const out = await bed.ovs.ofctl(['dump-flows', BR, `table=1,${match}`]);
    return Number(/n_packets=(\d+)/.exec(out)?.[1] ?? Number.NaN);
  };
  const invalidDrops = () => packets('ct_state=+inv+trk,ip');
  const reopenedEntries = () => packets('ct_state=+new+trk,ct_mark=1,tcp');
  /** Flow counters of recirculated packets reach OpenFlow when the revalidators run: poll. */
  const counterGrows = (what: string, read: () => Promise<number>, from: number) =>
    waitFor(what, async () => (await read()) > from || undefined, 30_000, 100);
  /** A connection the policy drops: the SYN is committed (SYN_SENT) and never answered. */
  const deniedSyn = async (fromPort: number): Promise<void> => {
    await bed.ovs.ofctl(['add-flow', BR, `${DENY},actions=drop`]);
    expect((await attempt(fromPort, 'rst')).result).toBe('timeout');
    expect(await stateOf(fromPort)).toBe('SYN_SENT');
    await bed.ovs.ofctl(['--strict', 'del-flows', BR, DENY]);
  };

  beforeAll(async () => {
    bed = await startPodBed({
      bridge: BR,
      pods: [
        { name: 'client', ip: CLIENT_IP },
        { name: 'server', ip: SERVER_IP },
      ],
    });
    client = bed.pods.get('client')!;
    server = bed.pods.get('server')!;
    for (const flow of PIPELINE) await bed.ovs.ofctl(['add-flow', BR, flow]);
    // A server that speaks first (SMTP, SSH, MySQL do): its data is what the stale entry drops.
    bed.runIn(server, 'greeter', [
      'socat',
      `TCP-LISTEN:${SERVER_PORT},fork,reuseaddr`,
      `SYSTEM:echo ${GREETING.trim()}`,
    ]);
    await client.netns.exec(['ping', '-c', '1', '-W', '5', SERVER_IP]);
    await waitFor(
      'the greeter listening',
      async () => (await server.netns.exec(['ss', '-Htln', `sport = :${SERVER_PORT}`])).trim() !== '',
    );
  });

  afterAll(async () => {
    await bed?.stop();
  });

  it('control: without the unanswered SYN, a RST closes the entry and the port is reusable', async () => {
    const port = nextPort++;
    expect(await attempt(port, 'rst')).toEqual({ result: 'open', greeting: GREETING });
    expect(await stateOf(port)).not.toBe('ESTABLISHED');
    expect((await attempt(port, 'rst')).result).toBe('open');
  });

  it('after it, the server speaks unheard, the RST is invalid and the entry stays ESTABLISHED', async () => {
    const port = nextPort++;
    await deniedSyn(port);
    const dropsBefore = await invalidDrops();
    const reopenedBefore = await reopenedEntries();
    // The new SYN is accepted as +new on the old entry, whose window keeps the old ISN: the
    // handshake passes, the server's greeting (acking the new ISN) is invalid, and so is the
    // client's RST (its sequence number is compared with the old ISN).
    expect(await attempt(port, 'rst')).toEqual({ result: 'open', greeting: '' });
    expect(await stateOf(port)).toBe('ESTABLISHED');
    // That SYN was +new on a committed entry: visible to flows (ct_mark already set).
    await counterGrows('the re-opening SYN counted', reopenedEntries, reopenedBefore);
    // The next connection from that port: the SYN is out of the stale window, dropped as invalid.
    expect((await attempt(port, 'rst')).result).toBe('timeout');
    expect(await stateOf(port)).toBe('ESTABLISHED');
    await counterGrows('invalid packets dropped', invalidDrops, dropsBefore);
  });

  it('after it, a client that sends data before its RST re-syncs the window and closes the entry', async () => {
    const port = nextPort++;
    await deniedSyn(port);
    expect((await attempt(port, 'data-rst')).result).toBe('open');
    expect(await stateOf(port)).not.toBe('ESTABLISHED');
    expect(await attempt(port, 'rst')).toEqual({ result: 'open', greeting: GREETING });
  });
});
