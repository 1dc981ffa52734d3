import { AntctlError } from './errors.js';

export type AntctlMode = 'controller' | 'agent';

export interface ModeDecision {
  readonly mode: AntctlMode;
  /**
   * Running inside an Antrea Pod: talk to the local API server over loopback with the loopback
   * token, instead of going through the Kubernetes API.
   */
  readonly inPod: boolean;
}

/**
 * Decides the mode the way Antrea's pkg/antctl/runtime does: the Pod's POD_NAME (set through the
 * downward API in Antrea's manifests) starting with "antrea-agent" means agent mode inside the
 * agent Pod, "antrea-controller" means controller mode inside the controller Pod, anything else is
 * controller mode from an operator's shell. `override` (--mode) wins, for the lab and for tests;
 * an override never turns on in-Pod access by itself unless POD_NAME says so too.
 */
export function decideMode(podName: string | undefined, override?: string): ModeDecision {
  const inAntreaPod =
    podName !== undefined && (podName.startsWith('antrea-agent') || podName.startsWith('antrea-controller'));
  const detected: AntctlMode = podName?.startsWith('antrea-agent') ? 'agent' : 'controller';
  if (override === undefined || override === '') return { mode: detected, inPod: inAntreaPod };
  if (override !== 'controller' && override !== 'agent') {
    throw new AntctlError('ANTCTL_USAGE', `invalid --mode "${override}": want "controller" or "agent"`);
  }
  // Agent mode only ever means the local agent API, so it counts as in-Pod access; controller mode
  // is in-Pod only when we really are in the controller Pod.
  const inPod = override === 'agent' ? true : inAntreaPod && detected === 'controller';
  return { mode: override, inPod };
}
