// Component restarts with connectivity kept. While antrea-controller crashes and an antrea-agent
// restarts, a probe loop between Pods on two Nodes must see every probe allowed: the flows stay in
// OVS. ovs-vswitchd crashing takes the datapath down with it; once restarted (and the agent has
// replayed its flows) the same Pods must reach each other again.
import assert from 'node:assert/strict';
import type { ClusterProvider, PodRef, ProbeOutcome } from '../framework/provider.js';
import {
  all,
  type E2eCheck,
  port80,
  probeFrom,
  probeUntil,
  servingPod,
  sleep,
  withNamespace,
} from './check.js';

/** Probes a -> b and b -> a (TCP and UDP on 80) in a loop until `during` settles. */
async function probeDuring(
  p: ClusterProvider,
  a: PodRef,
  b: PodRef,
  during: Promise<void>,
): Promise<ProbeOutcome[]> {
  let done = false;
  const settled = during.finally(() => {
    done = true;
  });
  const seen: ProbeOutcome[] = [];
  const loop = (async () => {
    while (!done) {
      seen.push(...(await probeFrom(p, a, port80(b), 2_000)), ...(await probeFrom(p, b, port80(a), 2_000)));
      await sleep(200);
    }
  })();
  await settled;
  await loop;
  return seen;
}

function restartCheck(component: 'antrea-controller' | 'antrea-agent', crash: boolean): E2eCheck {
  return {
    suite: 'restarts',
    name: `${component} ${crash ? 'crashes (SIGKILL)' : 'restarts'}: every probe between Pods on two Nodes is allowed throughout`,
    needs: ['listNodes', 'restartComponent'],
    timeoutMs: 180_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-restart', async (ns, p) => {
        const nodes = await p.listNodes!();
        const a = { namespace: ns, name: 'a' };
        const b = { namespace: ns, name: 'b' };
        await Promise.all([
          p.createPod(servingPod(ns, a.name, nodes[0])),
          p.createPod(servingPod(ns, b.name, nodes[1] ?? nodes[0])),
        ]);
        assert.deepEqual(await probeUntil(p, a, port80(b), 'allow'), all(port80(b), 'allow'));
        const name = component === 'antrea-controller' ? component : (`antrea-agent@${nodes[0]}` as const);
        const seen = await probeDuring(p, a, b, p.restartComponent!(name, { crash }));
        ctx.log(`${name}: ${seen.length} probes during the restart`);
        assert.ok(seen.length > 0, 'no probe ran during the restart');
        assert.deepEqual(
          seen.filter((o) => o !== 'allow'),
          [],
          `${seen.filter((o) => o === 'allow').length}/${seen.length} allowed`,
        );
        assert.deepEqual(await probeUntil(p, b, port80(a), 'allow'), all(port80(a), 'allow'));
      }),
  };
}

export const restartChecks: E2eCheck[] = [
  restartCheck('antrea-controller', true),
  restartCheck('antrea-agent', false),
  {
    suite: 'restarts',
    name: 'ovs-vswitchd crashes (SIGKILL): once restarted, Pods on its Node reach and are reached again',
    needs: ['listNodes', 'restartComponent'],
    timeoutMs: 180_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-restart-ovs', async (ns, p) => {
        const nodes = await p.listNodes!();
        const node = nodes[1] ?? nodes[0]!;
        const a = { namespace: ns, name: 'a' };
        const b = { namespace: ns, name: 'b' };
        await Promise.all([
          p.createPod(servingPod(ns, a.name, nodes[0])),
          p.createPod(servingPod(ns, b.name, node)),
        ]);
        assert.deepEqual(await probeUntil(p, a, port80(b), 'allow'), all(port80(b), 'allow'));
        await p.restartComponent!(`ovs-vswitchd@${node}`, { crash: true });
        assert.deepEqual(await probeUntil(p, a, port80(b), 'allow', 60_000), all(port80(b), 'allow'));
        assert.deepEqual(await probeUntil(p, b, port80(a), 'allow', 60_000), all(port80(a), 'allow'));
      }),
  },
];
