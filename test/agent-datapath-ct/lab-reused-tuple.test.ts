// The same conntrack behaviour as reused-tuple.test.ts, through the agent's real pipeline on a lab
// (instance 26: lab26-*): a client Pod on Node 1, a server Pod on Node 2, a K8s NetworkPolicy on the
// server that first selects no peer (the SYN is committed on Node 1 and dropped on Node 2), then the
// client. Fixed source ports; each step checked in both Nodes' `dpctl/dump-conntrack`. It pins what
// packages/agent/src/networkpolicy/README.md ("Userspace OVS conntrack and reused 5-tuples")
// describes: when it starts failing, the datapath changed and that section must be revisited.
import { join } from 'node:path';
import { CT_ZONE } from '@antrea-ts/apis';
import { run, waitFor } from '@antrea-ts/harness';
import type { Lab, NodeRecord } from '@antrea-ts/lab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eLabOptions } from '../../e2e/framework/lab-options.js';
import {
  createEnforcePods,
  type EnforcePods,
  flipPolicy,
  PolicyWriter,
  SERVER_PORT,
} from '../agent-policy/enforce-run.js';
import { freshLab } from '../agent-policy/lab-run.js';
import { type Attempt, type Close, entryState, tcpAttempt } from './conntrack-probe.js';

const options = e2eLabOptions(26, { owner: 'test' });
let lab: Lab;
let pods: EnforcePods;
let writer: PolicyWriter;
let nextPort = 42_000;

const nodeNamed = (name: string): NodeRecord => lab.state.nodes.find((n) => n.name === name)!;
const attempt = (fromPort: number, close: Close) =>
  tcpAttempt(pods.client.netns, `${pods.servers[0]!.pod.ips[0]}:${SERVER_PORT}`, fromPort, close);
/** The entry of the client's connection from `fromPort` on the client's and the server's Node. */
async function states(fromPort: number): Promise<Array<string | undefined>> {
  const nodes = [pods.client.node, pods.servers[0]!.pod.node].map(nodeNamed);
  return Promise.all(
    nodes.map(async (n) => {
      const ctl = join(n.ovsDir, 'ovs-vswitchd.ctl');
      const dump = await run(['ovs-appctl', '-t', ctl, 'dpctl/dump-conntrack', `zone=${CT_ZONE}`], {
        netns: n.netns,
      });
      return entryState(dump, fromPort);
    }),
  );
}
/** Waits until the policy's new verdict shows on fresh ports (realization is asynchronous). */
function settle(want: Attempt['result']): Promise<true> {
  return waitFor(
    `cross-node connections ${want}`,
    async () => (await attempt(nextPort++, 'rst')).result === want || undefined,
    60_000,
    100,
  );
}

describe('lab: a cross-node 5-tuple reused after a policy dropped its SYN', () => {
  beforeAll(async () => {
    lab = await freshLab(options, 2);
    pods = await createEnforcePods(lab);
    writer = new PolicyWriter(lab.kubeconfigPath);
    await settle('open');
  }, 600_000);

  afterAll(async () => {
    writer?.close();
    await lab?.down();
  }, 300_000);

  for (const close of ['rst', 'data-rst'] as const) {
    it(`denied SYN, then allowed and closed with ${close}, then the port again`, async () => {
      await writer.create(flipPolicy('k8s-np', false));
      try {
        await settle('timeout');
        const port = nextPort++;
        // Committed on the client's Node, dropped on the server's before its commit.
        expect((await attempt(port, 'rst')).result).toBe('timeout');
        expect(await states(port)).toEqual(['SYN_SENT', undefined]);

        await writer.patch(flipPolicy('k8s-np', true));
        await settle('open');
        const reused = await attempt(port, close);
        expect(reused.result).toBe('open');
        if (close === 'rst') {
          // The server's greeting and the client's RST are invalid on the client's Node.
          expect(reused.greeting).toBe('');
          expect(await states(port)).toEqual(['ESTABLISHED', 'CLOSING']);
          expect((await attempt(port, 'rst')).result).toBe('timeout');
        } else {
          expect((await states(port))[0]).not.toBe('ESTABLISHED');
          expect((await attempt(port, 'rst')).result).toBe('open');
        }
      } finally {
        await writer.delete(flipPolicy('k8s-np', false));
      }
    }, 180_000);
  }
});
