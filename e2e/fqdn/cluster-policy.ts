import type { Lab } from '@antrea-ts/lab';

/** Applies an Antrea ClusterNetworkPolicy (priority 5, application tier) with egress rules only to Pods labelled app=<app>. */
export async function applyEgressPolicy(
  lab: Lab,
  name: string,
  app: string,
  egress: unknown[],
): Promise<void> {
  await lab.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterNetworkPolicy',
      metadata: { name },
      spec: { priority: 5, appliedTo: [{ podSelector: { matchLabels: { app } } }], egress },
    }),
  });
}
