// Providers by name, for the CLI. A provider is a class implementing ClusterProvider
// (provider.ts); this file only builds them from CLI options.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { E2eError } from '../errors.js';
import type { ClusterProvider } from '../provider.js';
import { repoRoot } from '../repo-root.js';
import { loadControllerOracle } from './controller-oracle.js';
import { KindProvider, kubectlCommand } from './kind.js';
import { KubectlObjects } from './kubectl-objects.js';
import { type LabCluster, LabClusterProvider } from './lab-cluster-provider.js';
import { OracleProvider } from './oracle-provider.js';

export interface ProviderOptions {
  /** State dir of a running lab (`npm run lab -- up`). */
  labStateDir: string;
  /** Dir of the pinned kube binaries (kubectl). */
  kubeBinDir: string;
  /** Wait after realization for what reports no status (K8s NetworkPolicies, deletions). */
  settleMs: number;
  /** kind: the kubeconfig context (default: kubectl's current one). */
  kubeContext?: string;
  /** kind: the image of e2e Pods (needs node); default the project's image. */
  podImage?: string;
}

export type ProviderFactory = (o: ProviderOptions) => Promise<ClusterProvider>;

/** The slice of @antrea-ts/lab the lab provider uses (the package is typed loosely on purpose: see below). */
interface LabModule {
  Lab: { attach(o: { stateDir: string; artifacts: unknown; logger: unknown }): LabCluster & LabHandle };
  repoArtifacts(root: string, kubeBinDir: string): unknown;
}
interface LabHandle {
  /** Throws LAB_NOT_UP when no lab runs from the state dir. */
  readonly state: unknown;
}

async function createLabProvider(o: ProviderOptions): Promise<ClusterProvider> {
  // Imported by name at run time: the lab package is built by another part of the project, and the
  // oracle provider and the tests must not depend on it compiling.
  const name = '@antrea-ts/lab';
  let mod: LabModule;
  try {
    mod = (await import(name)) as LabModule;
  } catch (cause) {
    throw new E2eError(
      'E2E_PROVIDER',
      `cannot load ${name} (npm run build first?): ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  // Before the logger below makes <state dir>/logs: no lab, no side effect.
  if (!existsSync(join(o.labStateDir, 'state.json')))
    throw new E2eError('E2E_PROVIDER', `no lab in ${o.labStateDir} (npm run lab -- up, or --lab-state-dir)`);
  const logger = pino(
    { level: 'info', base: { app: 'e2e-cases' } },
    pino.destination({ dest: join(o.labStateDir, 'logs', 'e2e-cases.log'), mkdir: true, sync: true }),
  );
  const lab = mod.Lab.attach({
    stateDir: o.labStateDir,
    artifacts: mod.repoArtifacts(repoRoot(), o.kubeBinDir),
    logger,
  });
  void lab.state; // fails now, with the lab's message, when no lab runs
  const objects = new KubectlObjects(
    kubectlCommand({
      kubectl: join(o.kubeBinDir, 'kubectl'),
      kubeconfig: lab.kubeconfigPath,
      timeoutMs: 180_000,
    }),
  );
  return new LabClusterProvider(lab, objects, {
    settleMs: o.settleMs,
    antctlMain: join(repoRoot(), 'dist/cmd/antctl/main.js'),
  });
}

/** kubectl of --kube-bin-dir when there is one, else the one on PATH; fails early with no cluster. */
async function createKindProvider(o: ProviderOptions): Promise<ClusterProvider> {
  const pinned = join(o.kubeBinDir, 'kubectl');
  const kubectl = kubectlCommand({
    kubectl: existsSync(pinned) ? pinned : 'kubectl',
    ...(o.kubeContext ? { context: o.kubeContext } : {}),
    timeoutMs: 300_000,
  });
  try {
    await kubectl(['get', 'nodes', '-o', 'name', '--request-timeout=10s']);
  } catch (cause) {
    throw new E2eError(
      'E2E_PROVIDER',
      `no cluster answers kubectl${o.kubeContext ? ` in context ${o.kubeContext}` : ''} (hack/kind-up.sh first?): ${(cause as Error).message}`,
      { cause },
    );
  }
  return new KindProvider(kubectl, {
    settleMs: o.settleMs,
    ...(o.podImage ? { podImage: o.podImage } : {}),
  });
}

export const PROVIDERS: Record<string, { describe: string; create: ProviderFactory }> = {
  lab: {
    describe: 'the running local lab (netns Nodes with antrea-agent; npm run lab -- up)',
    create: createLabProvider,
  },
  oracle: {
    describe: "no packets: the controller's policy computation and its connectivity oracle",
    create: async () => new OracleProvider({ oracle: await loadControllerOracle() }),
  },
  kind: {
    describe: 'a kind cluster with the project deployed (hack/kind-up.sh), through kubectl and kubectl exec',
    create: createKindProvider,
  },
};

/** What the CLIs parse into provider options (flags of the same names in both). */
export interface ProviderFlags {
  provider: string;
  labStateDir: string;
  kubeBinDir: string;
  settleMs: number;
  kubeContext?: string | undefined;
  podImage?: string | undefined;
}

/**
 * The named provider built from CLI flags, or undefined after printing why not (the CLIs exit 2).
 * `extra` adds or replaces factories (tests).
 */
export async function providerFromFlags(
  f: ProviderFlags,
  err: (line: string) => void,
  extra: Record<string, { create: ProviderFactory }> = {},
): Promise<ClusterProvider | undefined> {
  const entry = { ...PROVIDERS, ...extra }[f.provider];
  try {
    if (!entry) throw new Error('unknown provider');
    return await entry.create({
      labStateDir: f.labStateDir,
      kubeBinDir: f.kubeBinDir,
      settleMs: f.settleMs,
      ...(f.kubeContext ? { kubeContext: f.kubeContext } : {}),
      ...(f.podImage ? { podImage: f.podImage } : {}),
    });
  } catch (e) {
    err(`provider ${f.provider}: ${(e as Error).message}`);
    return undefined;
  }
}
