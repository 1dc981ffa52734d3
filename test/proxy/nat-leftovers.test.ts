// Start-up clean-up of disabled features' nat rules with real iptables in a private netns: proxyAll's
// NodePort chains and NodePortLocal's chain, as their own code writes them, go in one
// `iptables-save -t nat` and one `iptables-restore`; a Node without them costs the read alone.
import {
  ExecCommandRunner,
  NODEPORT_ADDRESS_CHAIN,
  NODEPORT_CHAIN,
  NodePortIptables,
  NPL_CHAIN,
  NplIptables,
  nodePortLeftovers,
  nplLeftovers,
  removeNatLeftovers,
} from '@antrea-ts/agent';
import { createNetns, NET_PREFIX, type Netns, uniqueTag } from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

/** Runs in the netns and records each command line. */
class RecordingRunner extends ExecCommandRunner {
  readonly calls: string[] = [];
  override run(argv: readonly string[], options?: Parameters<ExecCommandRunner['run']>[1]): Promise<string> {
    this.calls.push(argv[0]!);
    return super.run(argv, options);
  }
}

let ns: Netns;
let runner: RecordingRunner;

beforeAll(async () => {
  ns = await createNetns(`${NET_PREFIX}-${uniqueTag()}-nat`);
  runner = new RecordingRunner(ns.name);
});

afterAll(async () => {
  await ns?.delete();
});

describe('disabled features’ nat leftovers', () => {
  it('NodePort chains and the NodePortLocal chain, with their jumps, go in one read and one restore', async () => {
    // Someone else's rule in the same chains stays.
    await ns.exec(['iptables', '-t', 'nat', '-A', 'PREROUTING', '-p', 'tcp', '--dport', '9', '-j', 'RETURN']);
    await new NodePortIptables(runner, logger).sync(['192.0.2.10'], [{ protocol: 'tcp', port: 30080 }]);
    const npl = new NplIptables(runner, logger);
    await npl.sync([{ nodePort: 61000, protocol: 'tcp', podIp: '10.10.0.5', podPort: 80 }]);
    const before = await ns.exec(['iptables-save', '-t', 'nat']);
    for (const chain of [NODEPORT_ADDRESS_CHAIN, NODEPORT_CHAIN, NPL_CHAIN])
      expect(before).toContain(`:${chain} `);

    runner.calls.length = 0;
    const written = await removeNatLeftovers(runner, [nodePortLeftovers, nplLeftovers]);
    expect(runner.calls).toEqual(['iptables-save', 'iptables-restore']);
    expect(written).toBeGreaterThan(0);
    const after = await ns.exec(['iptables-save', '-t', 'nat']);
    expect(after).not.toMatch(/ANTREA-NODEPORT|ANTREA-NODE-PORT-LOCAL/);
    expect(after).toContain('-A PREROUTING -p tcp -m tcp --dport 9 -j RETURN');

    runner.calls.length = 0;
    expect(await removeNatLeftovers(runner, [nodePortLeftovers, nplLeftovers])).toBe(0);
    expect(runner.calls).toEqual(['iptables-save']);
  }, 60_000);

  it('each feature’s own cleanup() still removes just its own chains', async () => {
    await new NodePortIptables(runner, logger).sync(['192.0.2.10'], [{ protocol: 'udp', port: 30053 }]);
    const npl = new NplIptables(runner, logger);
    await npl.sync([]);
    await npl.cleanup();
    const afterNpl = await ns.exec(['iptables-save', '-t', 'nat']);
    expect(afterNpl).not.toContain(NPL_CHAIN);
    expect(afterNpl).toContain(`:${NODEPORT_CHAIN} `);
    await new NodePortIptables(runner, logger).cleanup();
    expect(await ns.exec(['iptables-save', '-t', 'nat'])).not.toContain('ANTREA-');
  }, 60_000);
});
