// The agent's view of the Kubernetes API for PacketCaptures: an informer on packetcaptures, status
// writes through the status subresource (read, merge conditions, replace; retried on conflicts, as
// Antrea's RetryOnConflict), the file server Secret, and Pod addresses of Pods on other Nodes.
import {
  CRD_KINDS,
  CrdWatch,
  PACKET_CAPTURE_FILE_SERVER_SECRET,
  type PacketCapture,
  type PacketCaptureStatus,
} from '@antrea-ts/apis';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { AgentError } from '../errors.js';
import { unlessNotFound } from '../k8s/cluster-lookup.js';
import { mergeConditions, statusChanged } from './capture-status.js';

export interface PacketCaptureHandlers {
  upsert(pc: PacketCapture): void;
  remove(name: string): void;
}

export interface FileServerCredentials {
  readonly username: string;
  readonly password: string;
}

/** What the PacketCapture controller needs of the cluster; tests may use a double. */
export interface PacketCaptureApi {
  watch(handlers: PacketCaptureHandlers, signal?: AbortSignal): Promise<void>;
  stop(): Promise<void>;
  /** Writes the status unless only transition times would change; keeps unchanged conditions' times. */
  writeStatus(name: string, status: PacketCaptureStatus): Promise<void>;
  /** username and password of the antrea-packetcapture-fileserver-auth Secret. */
  fileServerCredentials(): Promise<FileServerCredentials>;
  /** A Pod's addresses (status.podIPs), none when the Pod does not exist. */
  podIps(namespace: string, name: string): Promise<string[]>;
}

const { group, version, plural } = CRD_KINDS.PacketCapture;
const CRD = { group, version, plural };
const CONFLICT_RETRIES = 8;

export class KubePacketCaptureApi implements PacketCaptureApi {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly captures: CrdWatch<PacketCapture>;
  private readonly log: Logger;

  /** `secretNamespace`: the Namespace Antrea runs in, where the file server Secret lives. */
  constructor(
    kubeConfig: KubeConfig,
    private readonly secretNamespace: string,
    logger: Logger,
  ) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.log = logger.child({ component: 'packetcapture-informer' });
    this.captures = new CrdWatch<PacketCapture>(kubeConfig, CRD, (err) =>
      this.log.warn({ err: String(err) }, 'PacketCapture watch failed; restarting'),
    );
  }

  async watch(handlers: PacketCaptureHandlers, signal?: AbortSignal): Promise<void> {
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
    await this.captures.start({
      upsert: (pc) => handlers.upsert(pc),
      remove: (pc) => handlers.remove(pc.metadata.name ?? ''),
    });
  }

  async stop(): Promise<void> {
    await this.captures.stop();
  }

  async writeStatus(name: string, status: PacketCaptureStatus): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const pc = (await this.custom.getClusterCustomObjectStatus({ ...CRD, name })) as PacketCapture;
      if (!statusChanged(pc.status, status)) return;
      const conditions = mergeConditions(pc.status?.conditions ?? [], status.conditions ?? []);
      try {
        await this.custom.replaceClusterCustomObjectStatus({
          ...CRD,
          name,
          body: { ...pc, status: { ...status, conditions } },
        });
        return;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= CONFLICT_RETRIES) throw err;
      }
    }
  }

  async fileServerCredentials(): Promise<FileServerCredentials> {
    const where = `${this.secretNamespace}/${PACKET_CAPTURE_FILE_SERVER_SECRET}`;
    const secret = await unlessNotFound(() =>
      this.core.readNamespacedSecret({
        namespace: this.secretNamespace,
        name: PACKET_CAPTURE_FILE_SERVER_SECRET,
      }),
    ).catch((err: unknown) => {
      throw new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', `cannot read Secret ${where}: ${String(err)}`, {
        cause: err,
      });
    });
    if (!secret) throw new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', `Secret ${where} does not exist`);
    const field = (key: string) => {
      const b64 = secret.data?.[key];
      if (b64 === undefined)
        throw new AgentError('AGENT_BUNDLE_UPLOAD_FAILED', `Secret ${where} has no ${key}`);
      return Buffer.from(b64, 'base64').toString('utf8');
    };
    return { username: field('username'), password: field('password') };
  }

  async podIps(namespace: string, name: string): Promise<string[]> {
    const pod = await unlessNotFound(() => this.core.readNamespacedPod({ namespace, name }));
    return pod?.status?.podIPs?.map((p) => p.ip) ?? (pod?.status?.podIP ? [pod.status.podIP] : []);
  }
}
