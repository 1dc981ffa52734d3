import type { AntreaAgentInfo } from '@antrea-ts/apis';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';

/** What the agent knows about itself when a heartbeat is due. */
export interface AgentSnapshot {
  readonly nodeName: string;
  readonly version: string;
  readonly podCidrs: readonly string[];
  readonly bridgeName: string;
  readonly flowTable: Readonly<Record<string, number>>;
  readonly localPodNum: number;
  readonly ovsdbUp: boolean;
  readonly openflowUp: boolean;
  readonly apiPort: number;
  readonly transportInterface: string;
  readonly transportMtu: number;
  readonly podMtu: number;
  readonly nodeIp: string;
  readonly transportPrefix: number;
  /** The agent API's CA bundle, base64 PEM (AntreaAgentInfo.apiCABundle); none without an API. */
  readonly apiCaBundle?: string;
}

export function buildAgentInfo(s: AgentSnapshot, now: Date): AntreaAgentInfo {
  const t = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cond = (type: 'AgentHealthy' | 'OVSDBConnectionUp' | 'OpenflowConnectionUp', up: boolean) => ({
    type,
    status: up ? ('True' as const) : ('False' as const),
    lastHeartbeatTime: t,
  });
  return {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'AntreaAgentInfo',
    metadata: { name: s.nodeName },
    version: s.version,
    nodeRef: { kind: 'Node', name: s.nodeName },
    nodeSubnets: [...s.podCidrs],
    ovsInfo: { bridgeName: s.bridgeName, flowTable: { ...s.flowTable } },
    localPodNum: s.localPodNum,
    agentConditions: [
      cond('AgentHealthy', true),
      cond('OVSDBConnectionUp', s.ovsdbUp),
      cond('OpenflowConnectionUp', s.openflowUp),
    ],
    apiPort: s.apiPort,
    ...(s.apiCaBundle ? { apiCABundle: s.apiCaBundle } : {}),
    networkInfo: {
      transportInterface: s.transportInterface,
      transportInterfaceMTU: s.transportMtu,
      podMTU: s.podMtu,
      transportInterfaceIPs: [`${s.nodeIp}/${s.transportPrefix}`],
    },
  } as AntreaAgentInfo;
}

/** Where AntreaAgentInfo goes; the real one is kube-apiserver. */
export interface AgentInfoWriter {
  write(info: AntreaAgentInfo): Promise<void>;
}

/** Creates the cluster-scoped AntreaAgentInfo named after the Node, or replaces it (keeping resourceVersion). */
export class KubeAgentInfoWriter implements AgentInfoWriter {
  private readonly api: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async write(info: AntreaAgentInfo): Promise<void> {
    const base = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'antreaagentinfos' };
    const name = info.metadata?.name ?? '';
    let current: { metadata?: { resourceVersion?: string } } | undefined;
    try {
      current = (await this.api.getClusterCustomObject({ ...base, name })) as typeof current;
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
    if (!current) {
      await this.api.createClusterCustomObject({ ...base, body: info });
      return;
    }
    const body = {
      ...info,
      metadata: { ...info.metadata, resourceVersion: current.metadata?.resourceVersion },
    };
    await this.api.replaceClusterCustomObject({ ...base, name, body });
  }
}

/** Writes AntreaAgentInfo at start and then every interval (Antrea's 60 s heartbeat). */
export class AgentInfoUpdater {
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      writer: AgentInfoWriter;
      snapshot: () => AgentSnapshot;
      now: () => Date;
      intervalMs: number;
      logger: Logger;
    },
  ) {
    this.log = deps.logger.child({ component: 'agent-info' });
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.timer) return;
    await this.update();
    this.timer = setInterval(() => void this.update(), this.deps.intervalMs);
    this.timer.unref();
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** Writes now (also used when something notable changed). Never throws: a heartbeat retries. */
  update(): Promise<void> {
    this.running ??= this.deps.writer
      .write(buildAgentInfo(this.deps.snapshot(), this.deps.now()))
      .catch((err) => this.log.warn({ err: (err as Error).message }, 'AntreaAgentInfo update failed'))
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
