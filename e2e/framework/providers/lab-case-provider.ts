import { join } from 'node:path';
import { cachedBinDir } from '@antrea-ts/harness';
import type { Lab } from '@antrea-ts/lab';
import { kubectlCommand } from './kind.js';
import { KubectlObjects } from './kubectl-objects.js';
import { LabProvider } from './lab-provider.js';

/** The provider the case runner uses on a running lab: objects through kubectl, Pods by the lab. */
export function labCaseProvider(lab: Lab): LabProvider {
  const objects = new KubectlObjects(
    kubectlCommand({
      kubectl: join(cachedBinDir(), 'kubectl'),
      kubeconfig: lab.kubeconfigPath,
      timeoutMs: 180_000,
    }),
  );
  return new LabProvider(lab, objects, { settleMs: 500 });
}
