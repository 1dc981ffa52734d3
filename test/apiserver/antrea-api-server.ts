import {
  ApiServer,
  AuthenticationConfigSource,
  CaBundlePublisher,
  KubeAccessReviewer,
  KubeAPIServiceClient,
  KubeConfigMapClient,
  KubeTokenReviewer,
  type ResourceRegistry,
  type SelfSignedCertManager,
} from '@antrea-ts/apiserver';
import type { ExtensionServerSetup } from '@antrea-ts/harness';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';

/** The Service the Antrea APIServices point at. */
export const ANTREA_SERVICE = { name: 'antrea', namespace: 'kube-system', port: 443 } as const;

export interface AntreaApiServer {
  readonly server: ApiServer;
  stop(): Promise<void>;
}

/**
 * The controller's API server infrastructure (@antrea-ts/apiserver) assembled as antrea-controller
 * assembles it, serving `registry` on the setup's address behind Service kube-system/antrea:
 * authentication through the aggregator's front-proxy identity (ConfigMap extension-apiserver-
 * authentication) and TokenReview, authorization through SubjectAccessReview, and the CA bundle
 * published to ConfigMap antrea-ca and the three Antrea APIServices. `others` are applied with the
 * Service (RBAC, ServiceAccounts, Nodes the test needs).
 */
export async function serveAntreaApis(
  setup: ExtensionServerSetup,
  options: {
    logger: Logger;
    registry: ResourceRegistry;
    certificates: SelfSignedCertManager;
    others?: readonly object[];
  },
): Promise<AntreaApiServer> {
  const { logger, certificates } = options;
  const { kubeConfig } = setup.kube;
  const configMaps = new KubeConfigMapClient(kubeConfig);
  const authenticationConfig = new AuthenticationConfigSource({ logger, configMaps });
  const server = new ApiServer({
    logger,
    registry: options.registry,
    certificates,
    tokenReviewer: new KubeTokenReviewer(kubeConfig),
    accessReviewer: new KubeAccessReviewer(kubeConfig),
    authenticationConfig,
    metricsRegistry: new Registry(),
    host: setup.ip,
    port: 0,
  });
  const publisher = new CaBundlePublisher({
    logger,
    configMaps,
    apiServices: new KubeAPIServiceClient(kubeConfig),
    service: ANTREA_SERVICE,
  });
  const stop = async () => {
    publisher.stop();
    authenticationConfig.stop();
    await server.stop();
  };
  try {
    await authenticationConfig.start();
    await server.start();
    await publisher.start(certificates);
    await setup.expose(
      {
        name: ANTREA_SERVICE.name,
        namespace: ANTREA_SERVICE.namespace,
        port: server.address.port,
        portName: 'api',
      },
      options.others,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, stop };
}
