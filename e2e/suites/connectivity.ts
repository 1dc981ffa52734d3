// Connectivity without policies: Pod to Pod on one Node and across Nodes (TCP and UDP), a closed
// port refused (the probe really reaches the Pod), and Pods reaching a server outside the cluster.
import assert from 'node:assert/strict';
import { all, type E2eCheck, eventually, port80, probeUntil, servingPod, withNamespace } from './check.js';

/** The first two Nodes (the same one twice on a one-Node cluster, then inter-Node is not tested). */
async function twoNodes(nodes: (() => Promise<string[]>) | undefined): Promise<[string?, string?]> {
  const names = nodes ? await nodes() : [];
  return [names[0], names[1] ?? names[0]];
}

export const connectivityChecks: E2eCheck[] = [
  {
    suite: 'connectivity',
    name: 'Pods reach Pods on the same Node and on another Node, TCP and UDP; a closed port is refused',
    needs: ['listNodes'],
    timeoutMs: 120_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-conn', async (ns, p) => {
        const [n1, n2] = await twoNodes(p.listNodes?.bind(p));
        const a = { namespace: ns, name: 'a' };
        const b = { namespace: ns, name: 'b' };
        const c = { namespace: ns, name: 'c' };
        await Promise.all([
          p.createPod(servingPod(ns, 'a', n1)),
          p.createPod(servingPod(ns, 'b', n1)),
          p.createPod(servingPod(ns, 'c', n2)),
        ]);
        // a -> b stays on Node 1; a -> c and c -> a cross the tunnel.
        const fromA = port80(b, c);
        assert.deepEqual(await probeUntil(p, a, fromA, 'allow'), all(fromA, 'allow'));
        const fromC = port80(a, b);
        assert.deepEqual(await probeUntil(p, c, fromC, 'allow'), all(fromC, 'allow'));
        const closed = [{ to: c, port: 81, protocol: 'TCP' as const }];
        assert.deepEqual(await probeUntil(p, a, closed, 'reject'), all(closed, 'reject'));
      }),
  },
  {
    suite: 'connectivity',
    name: 'Pods reach a server outside the cluster',
    needs: ['externalEndpoint', 'probeAddresses', 'listNodes'],
    timeoutMs: 90_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-ext', async (ns, p) => {
        const nodes = await p.listNodes!();
        const ext = await p.externalEndpoint!();
        ctx.log(`external endpoint: ${ext.description} ${ext.ip}:${ext.port}`);
        // One Pod per Node: each Node's gateway and SNAT take part.
        const pods = nodes.slice(0, 2).map((n, i) => ({ namespace: ns, name: `x${i + 1}`, node: n }));
        await Promise.all(pods.map((x) => p.createPod(servingPod(ns, x.name, x.node))));
        for (const from of pods) {
          const got = await eventually(
            () => p.probeAddresses!(from, [ext], 3_000),
            ([o]) => o === 'allow',
          );
          assert.deepEqual(got, ['allow'], `${from.name} on ${from.node} -> ${ext.ip}:${ext.port}`);
        }
      }),
  },
  {
    suite: 'connectivity',
    name: 'exec in a Pod: its eth0 holds the IP the cluster reported, and nothing else of the Pod network',
    needs: ['exec'],
    timeoutMs: 60_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-exec', async (ns, p) => {
        const pod = { namespace: ns, name: 'e' };
        const { ips } = await p.createPod(servingPod(ns, pod.name));
        // node is in every e2e Pod (kind image) and on the lab host; its view of the interfaces
        // is the Pod's network namespace.
        const script = "console.log(JSON.stringify(require('node:os').networkInterfaces()))";
        const ifaces = JSON.parse(await p.exec!(pod, ['node', '-e', script])) as Record<
          string,
          { address: string; family: string }[]
        >;
        const v4 = (name: string) =>
          (ifaces[name] ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address);
        assert.deepEqual(
          v4('eth0'),
          ips.filter((ip) => !ip.includes(':')),
        );
        assert.deepEqual(Object.keys(ifaces).sort(), ['eth0', 'lo']);
      }),
  },
];
