import { ANTREA_CONTROLLER_INFO_NAME, type AntreaControllerInfo } from '@antrea-ts/apis';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';

/** Where AntreaControllerInfo is stored (the CRD through kube-apiserver, or a fake). */
export interface ControllerInfoClient {
  get(name: string): Promise<AntreaControllerInfo | undefined>;
  create(info: AntreaControllerInfo): Promise<void>;
  /** Replaces the object; `info.metadata.resourceVersion` is the version it replaces. */
  replace(info: AntreaControllerInfo): Promise<void>;
}

export interface ControllerInfoSource {
  version: string;
  podRef?: { name: string; namespace: string };
  nodeName?: string;
  service: { name: string; namespace: string };
  apiPort: number;
  counts(): { networkPolicies: number; addressGroups: number; appliedToGroups: number };
  connectedAgents(): number;
  /** False until the first computation finished and the API server serves. */
  healthy(): boolean;
}

export interface ControllerInfoReporterOptions {
  logger: Logger;
  client: ControllerInfoClient;
  source: ControllerInfoSource;
  clock: Clock;
  /** Heartbeat period. Default 60 s, like Antrea's monitor. */
  intervalMs?: number;
}

/**
 * Keeps the AntreaControllerInfo "antrea-controller" current (Antrea pkg/monitor): version, object
 * counts, connected agents and the ControllerHealthy heartbeat, rewritten every interval. The same
 * object is served as system.antrea.io controllerinfos.
 */
export class ControllerInfoReporter {
  readonly #log: Logger;
  readonly #opts: ControllerInfoReporterOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(opts: ControllerInfoReporterOptions) {
    this.#log = opts.logger.child({ component: 'controller-info' });
    this.#opts = opts;
  }

  /** The object as it is now (what the next heartbeat writes). */
  current(): AntreaControllerInfo {
    const s = this.#opts.source;
    const c = s.counts();
    const info: AntreaControllerInfo = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'AntreaControllerInfo',
      metadata: { name: ANTREA_CONTROLLER_INFO_NAME },
      version: s.version,
      serviceRef: { kind: 'Service', namespace: s.service.namespace, name: s.service.name },
      networkPolicyControllerInfo: {
        networkPolicyNum: c.networkPolicies,
        addressGroupNum: c.addressGroups,
        appliedToGroupNum: c.appliedToGroups,
      },
      connectedAgentNum: s.connectedAgents(),
      controllerConditions: [
        {
          type: 'ControllerHealthy',
          status: s.healthy() ? 'True' : 'False',
          lastHeartbeatTime: this.#opts.clock
            .now()
            .toISOString()
            .replace(/\.\d+Z$/, 'Z'),
        },
      ],
      apiPort: s.apiPort,
    };
    if (s.podRef) info.podRef = { kind: 'Pod', ...s.podRef };
    if (s.nodeName) info.nodeRef = { kind: 'Node', name: s.nodeName };
    return info;
  }

  /** Writes the current object once (create, or replace the existing one). */
  async sync(): Promise<void> {
    const info = this.current();
    const existing = await this.#opts.client.get(ANTREA_CONTROLLER_INFO_NAME);
    if (!existing) {
      await this.#opts.client.create(info);
      return;
    }
    const rv = existing.metadata?.resourceVersion;
    info.metadata = { ...info.metadata, ...(rv ? { resourceVersion: rv } : {}) };
    await this.#opts.client.replace(info);
  }

  start(signal?: AbortSignal): void {
    if (this.#timer) return;
    const tick = () => {
      if (this.#running) return;
      this.#running = this.sync()
        .catch((err: unknown) => this.#log.warn({ err }, 'cannot update AntreaControllerInfo'))
        .finally(() => {
          this.#running = undefined;
        });
    };
    tick();
    this.#timer = setInterval(tick, this.#opts.intervalMs ?? 60_000);
    this.#timer.unref();
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
