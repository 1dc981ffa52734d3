import { ANTCTL_VERSION } from '@antrea-ts/antctl';

/** What antctl takes from its process environment; everything else comes from flags. */
export interface AntctlProcessOptions {
  readonly env: Readonly<{ POD_NAME?: string; KUBECONFIG?: string; HOME?: string }>;
  /** "kubectl antctl" when started by the kubectl plugin launcher, so usage reads right. */
  readonly programName: string;
  readonly version: string;
}

/**
 * POD_NAME decides the mode (Antrea's in-Pod detection), KUBECONFIG and HOME locate the
 * kubeconfig, and ANTCTL_PROGRAM_NAME is set by the kubectl-antctl launcher.
 */
export function loadOptions(env: NodeJS.ProcessEnv): AntctlProcessOptions {
  const pick = (k: string) => {
    const v = env[k];
    return v === undefined || v === '' ? {} : { [k]: v };
  };
  return Object.freeze({
    env: Object.freeze({ ...pick('POD_NAME'), ...pick('KUBECONFIG'), ...pick('HOME') }),
    programName: env['ANTCTL_PROGRAM_NAME'] || 'antctl',
    version: ANTCTL_VERSION,
  });
}
