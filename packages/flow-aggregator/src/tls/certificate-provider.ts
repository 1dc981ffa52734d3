import {
  ApiException,
  CoreV1Api,
  type KubeConfig,
  type V1ConfigMap,
  type V1Secret,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { FlowAggregatorError } from '../errors.js';
import { type CertKeyPem, createFlowAggregatorCa, issueLeaf, isUsable } from './certificates.js';

/** Antrea's names for the flow aggregator's TLS material (namespace `flow-aggregator` by default). */
export const FLOW_AGGREGATOR_TLS_NAMES = Object.freeze({
  namespace: 'flow-aggregator',
  service: 'flow-aggregator',
  /** kubernetes.io/tls Secret with the CA's certificate and key (only the aggregator reads it). */
  caSecret: 'flow-aggregator-ca-tls',
  /** kubernetes.io/tls Secret with the client certificate every agent presents. */
  clientSecret: 'flow-aggregator-client-tls',
  /** ConfigMap the agents read the CA from, key `ca.crt`. */
  caConfigMap: 'flow-aggregator-ca',
  caConfigMapKey: 'ca.crt',
});

/** What the gRPC collector serves with. */
export interface ServerTlsMaterial {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

export interface CertificateProviderOptions {
  readonly kubeConfig: KubeConfig;
  /** The aggregator's namespace (POD_NAMESPACE in a Pod); `flow-aggregator` by default. */
  readonly namespace?: string;
  /** flow-aggregator.conf `flowAggregatorAddress`: one more DNS name or IP in the server certificate. */
  readonly extraAddress?: string;
  readonly logger: Logger;
  readonly now?: () => number;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined): string => (s ? Buffer.from(s, 'base64').toString() : '');
const status = (err: unknown): number | undefined => (err instanceof ApiException ? err.code : undefined);

/**
 * The flow aggregator's certificates, kept as Antrea keeps them: a self-signed CA in the Secret
 * `flow-aggregator-ca-tls`, the agents' client certificate in `flow-aggregator-client-tls`, the CA
 * published in the ConfigMap `flow-aggregator-ca` (key `ca.crt`), each created, or replaced when
 * invalid or within 90 days of expiry; the server certificate is issued in memory at every start
 * for `flow-aggregator.<namespace>.svc` (plus `flowAggregatorAddress`). A CA kept across restarts
 * keeps the agents' material valid.
 */
export class CertificateProvider {
  private readonly api: CoreV1Api;
  private readonly log: Logger;
  private readonly ns: string;
  private readonly now: () => number;

  constructor(private readonly o: CertificateProviderOptions) {
    this.api = o.kubeConfig.makeApiClient(CoreV1Api);
    this.log = o.logger.child({ component: 'certificate-provider' });
    this.ns = o.namespace ?? FLOW_AGGREGATOR_TLS_NAMES.namespace;
    this.now = o.now ?? Date.now;
  }

  /** The names the server certificate carries. */
  serverNames(): string[] {
    const names = [`${FLOW_AGGREGATOR_TLS_NAMES.service}.${this.ns}.svc`];
    if (this.o.extraAddress) names.push(this.o.extraAddress);
    return names;
  }

  /** Syncs the Secrets and the ConfigMap (a conflict with another writer is retried), then issues the server certificate. */
  async sync(): Promise<ServerTlsMaterial> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.syncOnce();
      } catch (err) {
        const code = status(err);
        if ((code === 409 || code === 404) && attempt < 5) continue;
        throw new FlowAggregatorError(
          'FA_TLS',
          `cannot keep the flow aggregator's certificates in ${this.ns}: ${String(err)}`,
          {
            cause: err,
          },
        );
      }
    }
  }

  private async syncOnce(): Promise<ServerTlsMaterial> {
    const N = FLOW_AGGREGATOR_TLS_NAMES;
    const now = this.now();
    const caSecret = await this.readSecret(N.caSecret);
    let ca = pairOf(caSecret);
    if (!isUsable(ca, now)) {
      ca = createFlowAggregatorCa(now);
      await this.writeSecret(N.caSecret, ca, caSecret);
      this.log.info({ secret: N.caSecret }, 'flow aggregator CA created');
    }
    const clientSecret = await this.readSecret(N.clientSecret);
    if (!isUsable(pairOf(clientSecret), now, ca)) {
      await this.writeSecret(N.clientSecret, issueLeaf(ca!, 'client', now), clientSecret);
      this.log.info({ secret: N.clientSecret }, 'flow exporter client certificate issued');
    }
    await this.publishCa(ca!.certPem);
    const server = issueLeaf(ca!, 'server', now, this.serverNames());
    return { caPem: ca!.certPem, ...server };
  }

  private async readSecret(name: string): Promise<V1Secret | undefined> {
    try {
      return await this.api.readNamespacedSecret({ name, namespace: this.ns });
    } catch (err) {
      if (status(err) === 404) return undefined;
      throw err;
    }
  }

  private async writeSecret(name: string, pair: CertKeyPem, current: V1Secret | undefined): Promise<void> {
    const body: V1Secret = {
      ...(current ?? { metadata: { name, namespace: this.ns }, type: 'kubernetes.io/tls' }),
      data: { 'tls.crt': b64(pair.certPem), 'tls.key': b64(pair.keyPem) },
    };
    if (current) await this.api.replaceNamespacedSecret({ name, namespace: this.ns, body });
    else await this.api.createNamespacedSecret({ namespace: this.ns, body });
  }

  private async publishCa(caPem: string): Promise<void> {
    const N = FLOW_AGGREGATOR_TLS_NAMES;
    let current: V1ConfigMap | undefined;
    try {
      current = await this.api.readNamespacedConfigMap({ name: N.caConfigMap, namespace: this.ns });
    } catch (err) {
      if (status(err) !== 404) throw err;
    }
    if (current?.data?.[N.caConfigMapKey] === caPem) return;
    const body: V1ConfigMap = {
      ...(current ?? {
        metadata: { name: N.caConfigMap, namespace: this.ns, labels: { app: 'flow-aggregator' } },
      }),
      data: { [N.caConfigMapKey]: caPem },
    };
    if (current) await this.api.replaceNamespacedConfigMap({ name: N.caConfigMap, namespace: this.ns, body });
    else await this.api.createNamespacedConfigMap({ namespace: this.ns, body });
    this.log.info({ configMap: N.caConfigMap }, 'flow aggregator CA published');
  }
}

function pairOf(s: V1Secret | undefined): CertKeyPem | undefined {
  if (!s?.data) return undefined;
  return { certPem: unb64(s.data['tls.crt']), keyPem: unb64(s.data['tls.key']) };
}
