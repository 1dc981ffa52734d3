// antctl against the cluster: controller mode (through the Kubernetes API and the aggregator:
// version, the controlplane objects computed for a K8s NetworkPolicy, controllerinfo) and agent
// mode against one Node's agent (agentinfo, the Pod's interface, its OVS flows).
import assert from 'node:assert/strict';
import type { AntctlTarget, ClusterProvider } from '../framework/provider.js';
import { type E2eCheck, eventually, servingPod, withNamespace } from './check.js';

/** antctl -o json prints an object, a list, or a list wrapped in items: always an array here. */
function items<T>(out: string): T[] {
  const v = JSON.parse(out) as unknown;
  if (Array.isArray(v)) return v as T[];
  if (v && typeof v === 'object' && Array.isArray((v as { items?: unknown }).items))
    return (v as { items: T[] }).items;
  return [v as T];
}

async function antctlJson<T>(p: ClusterProvider, args: string[], target: AntctlTarget): Promise<T[]> {
  return items<T>(await p.antctl!([...args, '-o', 'json'], target));
}

interface ControlplanePolicy {
  sourceRef?: { type?: string; namespace?: string; name?: string };
  appliedToGroups?: string[];
  rules?: { from?: { addressGroups?: string[] } }[];
}
/** antctl's group response (as Antrea's): members under `pods`, address groups with their IP. */
interface Group {
  name?: string;
  pods?: { pod?: { namespace?: string; name?: string }; ip?: string }[];
}

interface ControllerInfo {
  version?: string;
  connectedAgentNum?: number;
  networkPolicyControllerInfo?: { networkPolicyNum?: number };
}

const CONTROLLER: AntctlTarget = { mode: 'controller' };

function members(g: Group | undefined): string[] {
  return (g?.pods ?? []).map((m) => `${m.pod?.namespace}/${m.pod?.name}${m.ip ? ` ${m.ip}` : ''}`).sort();
}

export const antctlChecks: E2eCheck[] = [
  {
    suite: 'antctl',
    name: 'controller mode: version, get networkpolicy / appliedtogroup / addressgroup, get controllerinfo',
    needs: ['antctl', 'listNodes'],
    timeoutMs: 120_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-antctl', async (ns, p) => {
        const version = await p.antctl!(['version'], CONTROLLER);
        assert.match(version, /^controllerVersion: \S+/m);
        assert.match(version, /^antctlVersion: \S+/m);

        const nodes = await p.listNodes!();
        const [, client] = await Promise.all([
          p.createPod(servingPod(ns, 'server', nodes[0])),
          p.createPod(servingPod(ns, 'client', nodes[1] ?? nodes[0])),
        ]);
        await p.apply({
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: { name: 'server-from-client', namespace: ns },
          spec: {
            podSelector: { matchLabels: { app: 'server' } },
            policyTypes: ['Ingress'],
            ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }],
          },
        });
        const ours = (l: ControlplanePolicy[]) =>
          l.find((x) => x.sourceRef?.namespace === ns && x.sourceRef.name === 'server-from-client');
        const policies = await eventually(
          () => antctlJson<ControlplanePolicy>(p, ['get', 'networkpolicy'], CONTROLLER),
          (l) => ours(l) !== undefined,
        );
        const np = ours(policies);
        assert.ok(
          np,
          `no controlplane NetworkPolicy for ${ns}/server-from-client in ${JSON.stringify(policies)}`,
        );
        assert.equal(np.sourceRef?.type, 'K8sNetworkPolicy');
        const [atgName] = np.appliedToGroups ?? [];
        const [agName] = np.rules?.[0]?.from?.addressGroups ?? [];
        assert.ok(atgName && agName, `policy without groups: ${JSON.stringify(np)}`);

        // Groups follow Pod events, a watch apart from the policy's: read until the members are in.
        const groupOf = async (kind: string, name: string, want: string[]) =>
          eventually(
            () => antctlJson<Group>(p, ['get', kind, name], CONTROLLER),
            (g) => JSON.stringify(members(g[0])) === JSON.stringify(want),
          );
        const atgs = await groupOf('appliedtogroup', atgName, [`${ns}/server`]);
        assert.equal(atgs[0]?.name, atgName);
        assert.deepEqual(members(atgs[0]), [`${ns}/server`]);
        const ags = await groupOf('addressgroup', agName, [`${ns}/client ${client.ips[0]}`]);
        assert.deepEqual(members(ags[0]), [`${ns}/client ${client.ips[0]}`]);

        const [info] = await eventually(
          () => antctlJson<ControllerInfo>(p, ['get', 'controllerinfo'], CONTROLLER),
          ([i]) => i?.connectedAgentNum === nodes.length,
        );
        assert.equal(info?.connectedAgentNum, nodes.length, JSON.stringify(info));
        assert.ok(info?.version);
        assert.ok((info?.networkPolicyControllerInfo?.networkPolicyNum ?? 0) >= 1, JSON.stringify(info));
      }),
  },
  {
    suite: 'antctl',
    name: "agent mode: get agentinfo, get podinterface, get ovsflows of a Pod on the agent's Node",
    needs: ['antctl', 'listNodes'],
    timeoutMs: 120_000,
    run: (ctx) =>
      withNamespace(ctx, 'e2e-antctl-agent', async (ns, p) => {
        const [node] = await p.listNodes!();
        const agent: AntctlTarget = { mode: 'agent', node: node! };
        const { ips } = await p.createPod(servingPod(ns, 'web', node));

        const [info] = await antctlJson<{ nodeRef?: { name?: string }; version?: string }>(
          p,
          ['get', 'agentinfo'],
          agent,
        );
        assert.equal(info?.nodeRef?.name, node);
        assert.ok(info?.version);

        const ifaces = await eventually(
          () =>
            antctlJson<{ name?: string; podNamespace?: string; ips?: string[]; ofPort?: number }>(
              p,
              ['get', 'podinterface', 'web', '-n', ns],
              agent,
            ),
          (l) => l.length === 1,
        );
        assert.equal(ifaces.length, 1, JSON.stringify(ifaces));
        assert.equal(ifaces[0]!.name, 'web');
        assert.equal(ifaces[0]!.podNamespace, ns);
        assert.deepEqual(ifaces[0]!.ips, ips);
        assert.ok((ifaces[0]!.ofPort ?? 0) > 0);

        const flows = await antctlJson<{ flow?: string }>(
          p,
          ['get', 'ovsflows', '-n', ns, '-p', 'web'],
          agent,
        );
        assert.ok(flows.length > 0, 'no OVS flows for the Pod');
        assert.ok(
          flows.some((f) => f.flow?.includes(ips[0]!)),
          `no flow of the Pod names its IP ${ips[0]}:\n${flows.map((f) => f.flow).join('\n')}`,
        );
      }),
  },
];
