// Providers by name, for the CLI. The lab and kind providers plug in here once they exist: each is
// a class implementing ClusterProvider (provider.ts); see e2e/README.md for what they must do.
import { E2eError } from '../errors.js';
import type { ClusterProvider } from '../provider.js';
import { loadControllerOracle } from './controller-oracle.js';
import { OracleProvider } from './oracle-provider.js';

export type ProviderFactory = () => Promise<ClusterProvider>;

export const PROVIDERS: Record<string, { describe: string; create: ProviderFactory }> = {
  oracle: {
    describe: "no packets: the controller's policy computation and its connectivity oracle",
    create: async () => new OracleProvider({ oracle: await loadControllerOracle() }),
  },
  lab: {
    describe: 'the local lab cluster (netns Nodes running antrea-agent): not available yet',
    create: () => {
      throw new E2eError(
        'E2E_UNSUPPORTED',
        'the lab provider does not exist yet (the lab cluster is being built); use --provider oracle',
      );
    },
  },
  kind: {
    describe: 'a kind cluster through kubectl exec: not available yet',
    create: () => {
      throw new E2eError('E2E_UNSUPPORTED', 'the kind provider does not exist yet; use --provider oracle');
    },
  },
};
