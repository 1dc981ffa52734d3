// Antrea's default agent -> Flow Aggregator transport, gRPC over mutual TLS, with the certificates
// kept in a real kube-apiserver: the aggregator creates its CA and the agents' client certificate
// (Secrets flow-aggregator-ca-tls, flow-aggregator-client-tls) and publishes the CA (ConfigMap
// flow-aggregator-ca); the agent's session reads them back, checks the aggregator's name
// (flow-aggregator.flow-aggregator.svc, as for Antrea's default Service address) and streams both
// Nodes' halves of a connection, which come out as one correlated record. A CA the aggregator did
// not sign with, a client certificate from another CA, or another server name are refused with
// IPFIX_TLS and the TLS reason. Antrea's other TLS transport, IPFIX over mutual TLS (`:tls`, the
// default of its aggregatorTransportProtocol), runs on the same certificates.
import {
  AGGREGATOR_TLS_SOURCE,
  type AggregatorClientTls,
  collectorServerName,
  kubeAggregatorTls,
  namedRecord,
  openCollectorSession,
} from '@antrea-ts/agent';
import {
  agentRecord,
  CertificateProvider,
  createFlowAggregatorCa,
  FLOW_AGGREGATOR_TLS_NAMES,
  FlowAggregator,
  type FlowValues,
  issueLeaf,
  type ServerTlsMaterial,
} from '@antrea-ts/flow-aggregator';
import { freePort, type KubeCluster, startKube, waitFor } from '@antrea-ts/harness';
import { ANTREA_AGENT_IPV4_ELEMENTS, type FieldValue, GrpcFlowExporter } from '@antrea-ts/ipfix';
import { CoreV1Api } from '@kubernetes/client-node';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
const SERVER_NAME = collectorServerName('flow-aggregator/flow-aggregator');

describe('gRPC flow export over mutual TLS with the aggregator’s certificates in Kubernetes', () => {
  let kube: KubeCluster;
  let serverTls: ServerTlsMaterial;
  let agentTls: AggregatorClientTls;
  let fa: FlowAggregator;
  const exported: FlowValues[] = [];

  beforeAll(async () => {
    kube = await startKube({ logger });
    await kube.kubectl(['create', 'namespace', FLOW_AGGREGATOR_TLS_NAMES.namespace]);
    serverTls = await new CertificateProvider({ kubeConfig: kube.kubeConfig, logger }).sync();
    agentTls = await kubeAggregatorTls(kube.kubeConfig)();
    fa = new FlowAggregator({
      host: '127.0.0.1',
      port: 0,
      transports: ['tls'],
      tls: serverTls,
      grpcPort: 0,
      activeTimeoutMs: 60_000,
      inactiveTimeoutMs: 90_000,
      expiryIntervalMs: 3_600_000, // rounds run by flush() only
      exporters: [
        {
          name: 'capture',
          start: async () => undefined,
          stop: async () => undefined,
          export: async (records) => {
            exported.push(...records.map((r) => ({ ...r })));
          },
        },
      ],
      logger,
    });
    await fa.start();
  }, 120_000);

  afterAll(async () => {
    await fa?.stop();
    await kube?.stop();
  });

  it('keeps Antrea’s Secrets and ConfigMap, and keeps the CA across restarts', async () => {
    const api = kube.kubeConfig.makeApiClient(CoreV1Api);
    const ns = FLOW_AGGREGATOR_TLS_NAMES.namespace;
    const ca = await api.readNamespacedSecret({ name: 'flow-aggregator-ca-tls', namespace: ns });
    const client = await api.readNamespacedSecret({ name: 'flow-aggregator-client-tls', namespace: ns });
    expect([ca.type, client.type]).toEqual(['kubernetes.io/tls', 'kubernetes.io/tls']);
    expect(Object.keys(client.data ?? {}).sort()).toEqual(['tls.crt', 'tls.key']);
    const cm = await api.readNamespacedConfigMap({ name: AGGREGATOR_TLS_SOURCE.caConfigMap, namespace: ns });
    expect(cm.data?.['ca.crt']).toBe(serverTls.caPem);
    expect(cm.metadata?.labels).toEqual({ app: 'flow-aggregator' });
    // A second start (another process) reuses the CA and client certificate: agents stay valid.
    const again = await new CertificateProvider({ kubeConfig: kube.kubeConfig, logger }).sync();
    expect(again.caPem).toBe(serverTls.caPem);
    expect(await kubeAggregatorTls(kube.kubeConfig)()).toEqual(agentTls);
  });

  it('streams both Nodes’ halves, which the aggregator correlates into one record', async () => {
    const conn = {
      src: '10.10.0.5',
      dst: '10.10.1.7',
      sport: 40_123,
      dport: 8080,
      flowType: 2,
      start: 100,
      end: 105,
    };
    const halves = [
      agentRecord({ ...conn, srcPod: { name: 'client', namespace: 'fa', node: 'node-1' }, octets: 900n }),
      agentRecord({ ...conn, dstPod: { name: 'server', namespace: 'fa', node: 'node-2' }, octets: 900n }),
    ];
    const ordered = (r: FlowValues): FieldValue[] => ANTREA_AGENT_IPV4_ELEMENTS.map((n) => r[n]!);
    for (const half of halves) {
      // Each Node's own session, as each agent opens it.
      const session = await openCollectorSession({
        host: '127.0.0.1',
        port: fa.grpcPort,
        transport: 'grpc',
        serverName: SERVER_NAME,
        domainId: 45,
        readTls: kubeAggregatorTls(kube.kubeConfig),
        logger,
        now: Date.now,
      });
      expect(namedRecord(ordered(half))).toEqual(half);
      await session.send([ordered(half)]);
      await waitFor(
        'the aggregator took the record',
        async () => fa.stats().recordsIn >= halves.indexOf(half) + 1,
        10_000,
      );
      session.close();
    }
    await fa.flush();
    expect(exported).toHaveLength(1);
    expect(exported[0]).toMatchObject({
      sourceIPv4Address: '10.10.0.5',
      destinationIPv4Address: '10.10.1.7',
      sourcePodName: 'client',
      sourceNodeName: 'node-1',
      destinationPodName: 'server',
      destinationNodeName: 'node-2',
      flowEndSecondsFromSourceNode: 105,
      flowEndSecondsFromDestinationNode: 105,
    });
  });

  it('takes IPFIX over mutual TLS with the same certificates, and refuses a stranger there too', async () => {
    const before = fa.stats().recordsIn;
    const open = (readTls: () => Promise<AggregatorClientTls>) =>
      openCollectorSession({
        host: '127.0.0.1',
        port: fa.port,
        transport: 'tls',
        serverName: SERVER_NAME,
        domainId: 46,
        readTls,
        logger,
        now: Date.now,
      });
    const session = await open(kubeAggregatorTls(kube.kubeConfig));
    const rec = agentRecord({
      src: '10.10.0.9',
      dst: '8.8.8.8',
      sport: 40_999,
      dport: 53,
      flowType: 3,
      start: 100,
      end: 101,
      srcPod: { name: 'client', namespace: 'fa', node: 'node-1' },
    });
    await session.send([ANTREA_AGENT_IPV4_ELEMENTS.map((n) => rec[n]!)]);
    await waitFor('the IPFIX record over TLS', async () => fa.stats().recordsIn > before, 10_000);
    session.close();
    const otherCa = createFlowAggregatorCa(Date.now());
    const err = await open(async () => ({ ...agentTls, ...issueLeaf(otherCa, 'client', Date.now()) })).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'IPFIX_TLS' });
  });

  /** Opens (and closes again) one gRPC export stream; rejects as connect() does. */
  const connect = async (tls: AggregatorClientTls, serverName = SERVER_NAME): Promise<void> => {
    const exporter = new GrpcFlowExporter({
      host: '127.0.0.1',
      port: fa.grpcPort,
      tls: { ...tls, serverName },
      domainId: 1,
      logger,
      connectTimeoutMs: 5000,
    });
    try {
      await exporter.connect();
    } finally {
      exporter.close();
    }
  };

  it('refuses an aggregator certificate from another CA, with the reason', async () => {
    const otherCa = createFlowAggregatorCa(Date.now());
    const err = await connect({ ...agentTls, caPem: otherCa.certPem }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IPFIX_TLS' });
    expect(String((err as Error).message)).toMatch(
      /flow aggregator at 127\.0\.0\.1:\d+ .*failed: .*certificate/i,
    );
  });

  it('is refused by the aggregator with a client certificate from another CA', async () => {
    const otherCa = createFlowAggregatorCa(Date.now());
    const stranger = issueLeaf(otherCa, 'client', Date.now());
    const err = await connect({ ...agentTls, ...stranger }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IPFIX_TLS' });
    expect(String((err as Error).message)).toMatch(/alert|certificate|reset|socket/i);
  });

  it('refuses an aggregator whose certificate does not carry the expected name', async () => {
    const err = await connect(agentTls, 'other.flow-aggregator.svc').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IPFIX_TLS' });
    expect(String((err as Error).message)).toMatch(/altnames|does not match/i);
  });

  it('tells an aggregator that is not listening (IPFIX_SEND) from a TLS refusal', async () => {
    const port = await freePort();
    const err = await new GrpcFlowExporter({
      host: '127.0.0.1',
      port,
      tls: { ...agentTls, serverName: SERVER_NAME },
      domainId: 1,
      logger,
    })
      .connect()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IPFIX_SEND' });
    expect(String((err as Error).message)).toMatch(/ECONNREFUSED/);
  });

  // Last: it replaces the CA the tests above use.
  it('follows a rotated CA: the collectors restart with it, agents re-read it, the old CA is refused', async () => {
    const api = kube.kubeConfig.makeApiClient(CoreV1Api);
    await api.deleteNamespacedSecret({
      name: 'flow-aggregator-ca-tls',
      namespace: FLOW_AGGREGATOR_TLS_NAMES.namespace,
    });
    const rotated = await new CertificateProvider({ kubeConfig: kube.kubeConfig, logger }).sync();
    expect(rotated.caPem).not.toBe(serverTls.caPem);
    const grpcPort = fa.grpcPort;
    await fa.updateTls(rotated);
    expect(fa.grpcPort).toBe(grpcPort);
    const fresh = await kubeAggregatorTls(kube.kubeConfig)();
    expect(fresh.caPem).toBe(rotated.caPem);
    expect(fresh.certPem).not.toBe(agentTls.certPem); // the client certificate was reissued too
    await connect(fresh);
    const err = await connect(agentTls).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IPFIX_TLS' });
  });
});
