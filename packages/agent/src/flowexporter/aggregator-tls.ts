import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { AgentError } from '../errors.js';

/** The CA and client certificate an agent uses for gRPC to the Flow Aggregator (PEM). */
export interface AggregatorClientTls {
  readonly caPem: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** Where Antrea's agents read them (published by the Flow Aggregator; the agent's Role allows get). */
export const AGGREGATOR_TLS_SOURCE = Object.freeze({
  namespace: 'flow-aggregator',
  caConfigMap: 'flow-aggregator-ca',
  caKey: 'ca.crt',
  clientSecret: 'flow-aggregator-client-tls',
});

const fromB64 = (s: string | undefined): string => (s ? Buffer.from(s, 'base64').toString() : '');

/**
 * Reads the ConfigMap `flow-aggregator/flow-aggregator-ca` and the Secret
 * `flow-aggregator/flow-aggregator-client-tls` at every new session, as Antrea does, so an
 * aggregator that rotated its CA is followed. Missing material is AGENT_FLOW_EXPORTER_TLS (the
 * exporter retries with backoff: the aggregator may not have published it yet).
 */
export function kubeAggregatorTls(kubeConfig: KubeConfig): () => Promise<AggregatorClientTls> {
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const S = AGGREGATOR_TLS_SOURCE;
  return async () => {
    const fail = (what: string, cause?: unknown) =>
      new AgentError('AGENT_FLOW_EXPORTER_TLS', `flow aggregator TLS material: ${what}`, { cause });
    const cm = await api
      .readNamespacedConfigMap({ name: S.caConfigMap, namespace: S.namespace })
      .catch((err: unknown) => {
        throw fail(`cannot read ConfigMap ${S.namespace}/${S.caConfigMap}`, err);
      });
    const caPem = cm.data?.[S.caKey] ?? '';
    if (!caPem) throw fail(`no ${S.caKey} in ConfigMap ${S.namespace}/${S.caConfigMap}`);
    const secret = await api
      .readNamespacedSecret({ name: S.clientSecret, namespace: S.namespace })
      .catch((err: unknown) => {
        throw fail(`cannot read Secret ${S.namespace}/${S.clientSecret}`, err);
      });
    const certPem = fromB64(secret.data?.['tls.crt']);
    const keyPem = fromB64(secret.data?.['tls.key']);
    if (!certPem || !keyPem)
      throw fail(`missing tls.crt or tls.key in Secret ${S.namespace}/${S.clientSecret}`);
    return { caPem, certPem, keyPem };
  };
}
