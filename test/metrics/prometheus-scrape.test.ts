// A Prometheus scrape job written for Antrea (its docs/prometheus-integration.md: scheme https,
// insecure_skip_verify, the bearer token of a ServiceAccount bound to the `prometheus` ClusterRole)
// against antrea-controller's API server and the agent's API, with a real kube-apiserver deciding
// who may read /metrics (TokenReview + SubjectAccessReview).
import type { AddressInfo } from 'node:net';
import { type AgentApiSource, AgentMetrics, agentApiCertificates, buildRestApi } from '@antrea-ts/agent';
import {
  ApiServer,
  KubeAccessReviewer,
  KubeTokenReviewer,
  ResourceRegistry,
  SelfSignedCertManager,
} from '@antrea-ts/apiserver';
import { ControllerMetrics } from '@antrea-ts/controller';
import {
  type KubeCluster,
  prometheusScrape,
  serviceAccountWithClusterRole,
  startKube,
  waitFor,
} from '@antrea-ts/harness';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });

/** The `prometheus` ClusterRole of Antrea's build/yamls/antrea-prometheus.yml, rule for rule. */
const PROMETHEUS_RULES = [
  {
    apiGroups: [''],
    resources: ['nodes', 'nodes/proxy', 'services', 'endpoints', 'pods'],
    verbs: ['get', 'list', 'watch'],
  },
  { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: ['get', 'list', 'watch'] },
  { nonResourceURLs: ['/metrics'], verbs: ['get'] },
];

/** GET /metrics of a local server as Prometheus does with the scrape job written for Antrea. */
const scrape = (port: number, token?: string) => prometheusScrape(`https://127.0.0.1:${port}/metrics`, token);

describe('Prometheus scrape config written for Antrea', () => {
  let kube: KubeCluster;
  let controller: ApiServer;
  let controllerCerts: SelfSignedCertManager;
  let agent: FastifyInstance;
  let controllerPort: number;
  let agentPort: number;
  let prometheusToken: string;
  let otherToken: string;

  beforeAll(async () => {
    kube = await startKube({ logger });
    const objects = [
      ...serviceAccountWithClusterRole({
        name: 'prometheus',
        namespace: 'monitoring',
        clusterRole: 'prometheus',
        rules: PROMETHEUS_RULES,
      }),
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'not-prometheus', namespace: 'monitoring' },
      },
    ];
    await kube.kubectl(['create', 'namespace', 'monitoring']);
    await kube.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
    });
    prometheusToken = (await kube.kubectl(['create', 'token', 'prometheus', '-n', 'monitoring'])).trim();
    otherToken = (await kube.kubectl(['create', 'token', 'not-prometheus', '-n', 'monitoring'])).trim();
    const reviewers = {
      tokenReviewer: new KubeTokenReviewer(kube.kubeConfig),
      accessReviewer: new KubeAccessReviewer(kube.kubeConfig),
    };

    // antrea-controller's API server with the controller's metrics on its registry.
    const registry = new Registry();
    new ControllerMetrics(registry, {
      counts: () => ({ networkPolicies: 0, addressGroups: 0, appliedToGroups: 0 }),
      watchers: () => ({}),
      connectedAgents: () => 0,
      pendingChanges: () => false,
      queueLengths: () => ({ networkPolicies: 0, appliedToGroups: 0, addressGroups: 0 }),
    });
    controllerCerts = new SelfSignedCertManager({ logger, dnsNames: ['antrea'], ipAddresses: ['127.0.0.1'] });
    controller = new ApiServer({
      logger,
      registry: new ResourceRegistry(),
      certificates: controllerCerts,
      metricsRegistry: registry,
      ...reviewers,
      host: '127.0.0.1',
      port: 0,
    });
    await controller.start();
    controllerPort = controller.address.port;

    // The agent's API (what antrea-agent serves on 10350) with the agent's registry.
    const metrics = new AgentMetrics();
    agent = buildRestApi(
      {
        metrics,
        refreshMetrics: () => metrics.localPods.set(3),
        ready: () => true,
      } as unknown as AgentApiSource,
      logger,
      {
        certificates: agentApiCertificates(logger),
        auth: { ...reviewers, loopbackToken: 'loopback', logger },
      },
    );
    await agent.listen({ host: '127.0.0.1', port: 0 });
    agentPort = (agent.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await agent?.close();
    await controller?.stop();
    controllerCerts?.stop();
    await kube?.stop();
  });

  const components = () => [
    {
      name: 'antrea-controller',
      port: controllerPort,
      sample: 'antrea_controller_length_network_policy_queue 0',
    },
    { name: 'antrea-agent', port: agentPort, sample: 'antrea_agent_local_pod_count 3' },
  ];

  it('gives the prometheus ServiceAccount the metrics of both components', async () => {
    for (const c of components()) {
      // RBAC may take a moment to reach the authorizer's informers after the apply.
      await waitFor(`${c.name} /metrics with the prometheus token`, async () => {
        return (await scrape(c.port, prometheusToken)).status === 200;
      });
      const ok = await scrape(c.port, prometheusToken);
      expect(ok.status, c.name).toBe(200);
      expect(ok.text, c.name).toContain(c.sample);
    }
  });

  it('refuses a ServiceAccount without the role (403) and a scrape without a token (401)', async () => {
    for (const c of components()) {
      const denied = await scrape(c.port, otherToken);
      expect(denied.status, c.name).toBe(403);
      expect(JSON.parse(denied.text), c.name).toMatchObject({
        kind: 'Status',
        reason: 'Forbidden',
        message:
          'forbidden: User "system:serviceaccount:monitoring:not-prometheus" cannot get path "/metrics"',
      });
      expect((await scrape(c.port)).status, c.name).toBe(401);
    }
  });
});
