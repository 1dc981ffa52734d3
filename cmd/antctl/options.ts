import { ANTCTL_VERSION, type AntctlDeps } from '@antrea-ts/antctl';

/** What antctl takes from its process environment; everything else comes from flags. */
export interface AntctlProcessOptions {
  readonly env: AntctlDeps['env'];
  /** "kubectl antctl" when started by the kubectl plugin launcher, so usage reads right. */
  readonly programName: string;
  readonly version: string;
}

/**
 * POD_NAME decides the mode (Antrea's in-Pod detection), KUBECONFIG and HOME locate the
 * kubeconfig, ANTCTL_PROGRAM_NAME is set by the kubectl-antctl launcher, and ANTCTL_AGENT_TOKEN_FILE
 * names the agent's loopback token file when it is not at Antrea's path (lab Nodes share one filesystem).
 */
export function loadOptions(env: NodeJS.ProcessEnv): AntctlProcessOptions {
  const pick = (k: string) => {
    const v = env[k];
    return v === undefined || v === '' ? {} : { [k]: v };
  };
  return Object.freeze({
    env: Object.freeze({
      ...pick('POD_NAME'),
      ...pick('KUBECONFIG'),
      ...pick('HOME'),
      ...pick('ANTCTL_AGENT_TOKEN_FILE'),
    }),
    programName: env['ANTCTL_PROGRAM_NAME'] || 'antctl',
    version: ANTCTL_VERSION,
  });
}
