// Node add and remove: a new Node runs Pods that reach the existing ones through the tunnel (both
// ways); removing it takes its Pods with it and leaves the other Nodes' Pods connected.
import assert from 'node:assert/strict';
import { all, type E2eCheck, port80, probeUntil, servingPod, withNamespace } from './check.js';

export const nodeChecks: E2eCheck[] = [
  {
    suite: 'nodes',
    name: 'a Node added runs connected Pods; removed, its Pods go and the rest stay connected',
    needs: ['listNodes', 'addNode', 'removeNode'],
    timeoutMs: 240_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-nodes', async (ns, p) => {
        const before = await p.listNodes!();
        const a = { namespace: ns, name: 'a' };
        const b = { namespace: ns, name: 'b' };
        const n = { namespace: ns, name: 'n' };
        await Promise.all([
          p.createPod(servingPod(ns, a.name, before[0])),
          p.createPod(servingPod(ns, b.name, before[1] ?? before[0])),
        ]);
        const added = await p.addNode!();
        ctx.log(`added ${added}`);
        let removed = false;
        try {
          assert.deepEqual(await p.listNodes!(), [...before, added]);
          await p.createPod(servingPod(ns, n.name, added));
          assert.deepEqual(await probeUntil(p, a, port80(n), 'allow'), all(port80(n), 'allow'));
          assert.deepEqual(await probeUntil(p, n, port80(a, b), 'allow'), all(port80(a, b), 'allow'));

          await p.removeNode!(added);
          removed = true;
          assert.deepEqual(await p.listNodes!(), before);
          await assert.rejects(p.podIPs(n), 'the removed Node took its Pod');
          assert.deepEqual(await probeUntil(p, a, port80(b), 'allow'), all(port80(b), 'allow'));
        } finally {
          if (!removed) await p.removeNode!(added);
        }
      }),
  },
];
