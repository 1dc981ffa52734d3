// Every e2e check, in the order a shared cluster runs them: the ones that change the cluster
// (Nodes, restarts) last, so a failure there does not hide the others' results.
import { antctlChecks } from './antctl.js';
import type { E2eCheck } from './check.js';
import { connectivityChecks } from './connectivity.js';
import { nodeChecks } from './nodes.js';
import { type ChurnOptions, podChurnCheck } from './pod-churn.js';
import { restartChecks } from './restarts.js';

/** Churn sized for a Node podCIDR of /28 (13 Pod IPs, as the lab suite sets): reuse shows in round 2. */
export const LAB_CHURN: ChurnOptions = { podsPerRound: 8, maxPods: 32, concurrency: 4 };

export function allChecks(churn: ChurnOptions = LAB_CHURN): E2eCheck[] {
  return [...connectivityChecks, podChurnCheck(churn), ...antctlChecks, ...nodeChecks, ...restartChecks];
}
