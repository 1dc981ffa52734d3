// The agent API routes added for antctl's agent mode and support bundles, composed in one place
// so the Agent registers them with one call next to buildRestApi.
import { type LogRing, SupportBundleState } from '@antrea-ts/apis';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type AgentBundleSource, agentBundleCollector } from '../supportbundle/agent-collectors.js';
import { registerAntctlRoutes } from './antctl-routes.js';
import { agentFeatureGates } from './feature-gates.js';
import type { LogLevelControl } from './log-level.js';
import { registerSupportBundleRoutes } from './supportbundle-routes.js';

/** What antrea-agent's composition root gives the agent for support bundles. */
export interface AgentSupportBundleOptions {
  readonly logs?: LogRing;
  /** Directories whose files go into bundles (the NetworkPolicy audit log dir, OVS logs). */
  readonly logDirs?: readonly string[];
  /** The configuration file's text. */
  readonly configText?: string;
  /** Values known to be secret (token, key material): never written to a bundle. */
  readonly secrets?: () => Promise<string[]>;
}

export interface AgentExtensionsOptions extends AgentBundleSource {
  readonly logLevel: LogLevelControl;
  /** Feature gates this agent runs with. */
  readonly enabledGates: ReadonlySet<string>;
  readonly logger: Logger;
}

/** Registers /networkpolicies, /appliedtogroups, /addressgroups, /fqdncache, /featuregates, /loglevel and supportbundles. */
export function registerAgentExtensions(app: FastifyInstance, o: AgentExtensionsOptions): SupportBundleState {
  const log = o.logger.child({ component: 'support-bundle' });
  const bundle = new SupportBundleState('agent', agentBundleCollector(o), o.now, (err) =>
    log.warn({ err }, 'support bundle collection failed'),
  );
  registerAntctlRoutes(app, {
    policy: o.policy,
    featureGates: () => agentFeatureGates(o.enabledGates),
    logLevel: o.logLevel,
  });
  registerSupportBundleRoutes(app, bundle);
  return bundle;
}
