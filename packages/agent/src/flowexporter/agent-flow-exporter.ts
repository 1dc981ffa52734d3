import { CT_ZONE } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { InterfaceStore } from '../cniserver/interface-store.js';
import type { CompletedRule } from '../networkpolicy/rule-cache.js';
import { ServiceCTMarkField } from '../openflow/fields.js';
import type { FlowCache } from '../openflow/flow-cache.js';
import { agentFlowMetadata, podsByIp, servicePortNames } from './agent-metadata.js';
import type { AggregatorClientTls } from './aggregator-tls.js';
import type { FlowExporterConfig } from './config.js';
import { FlowExporter } from './flow-exporter.js';
import { podCidrClassifier, readOncePerTurn } from './flow-type.js';

export interface AgentFlowExporterDeps {
  readonly nodeName: string;
  readonly config: FlowExporterConfig;
  readonly networkPolicyOnly: boolean;
  readonly dumpConntrack: () => Promise<string>;
  readonly store: Pick<InterfaceStore, 'list' | 'onChange'>;
  readonly flows: Pick<FlowCache, 'ownersWithPrefix' | 'owned'>;
  /** This Node's podCIDR and its peers'. */
  readonly podCidrs: () => readonly string[];
  readonly ruleOfConjId: (id: number) => CompletedRule | undefined;
  readonly resolveService?: (namespace: string, name: string) => Promise<string | undefined>;
  /** The Flow Aggregator's CA and client certificate (gRPC transport). */
  readonly readTls?: () => Promise<AggregatorClientTls>;
  /** Each conntrack poll's duration in seconds (the agent's metric). */
  readonly onPollCycle?: (seconds: number) => void;
  readonly logger: Logger;
}

/** The agent's flow exporter and what it holds open, for stop(). */
export interface RunningFlowExporter {
  readonly exporter: FlowExporter;
  stop(): Promise<void>;
}

/** Builds and starts the flow exporter from the agent's parts (gate and `enable` checked by the caller). */
export function startAgentFlowExporter(d: AgentFlowExporterDeps): RunningFlowExporter {
  const pods = podsByIp(d.store);
  const exporter = new FlowExporter({
    nodeName: d.nodeName,
    collector: d.config.collector,
    pollIntervalMs: d.config.pollIntervalMs,
    activeTimeoutMs: d.config.activeTimeoutMs,
    idleTimeoutMs: d.config.idleTimeoutMs,
    protocols: d.config.protocols,
    dumpConntrack: d.dumpConntrack,
    zone: CT_ZONE,
    serviceMarkBit: 1 << ServiceCTMarkField.start,
    metadata: agentFlowMetadata(pods.lookup, servicePortNames(d.flows), d.ruleOfConjId),
    // The list is built (peers sorted) on each call: read once per export round, not twice per record.
    classify: podCidrClassifier(readOncePerTurn(d.podCidrs)),
    networkPolicyOnly: d.networkPolicyOnly,
    ...(d.resolveService ? { resolveService: d.resolveService } : {}),
    ...(d.readTls ? { readTls: d.readTls } : {}),
    ...(d.onPollCycle ? { onPollCycle: d.onPollCycle } : {}),
    logger: d.logger,
  });
  exporter.start();
  return {
    exporter,
    stop: async () => {
      pods.close();
      await exporter.stop();
    },
  };
}
