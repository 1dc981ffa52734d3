import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { CONTROLLER_API_PORT } from '@antrea-ts/apis';
import { type AntreaControllerConfig, CidrAllocator } from '@antrea-ts/controller';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parse as parseYaml } from 'yaml';

export const VERSION = 'v2.8.0-ts.0.1.0';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface ControllerOptions {
  readonly controller: Readonly<AntreaControllerConfig>;
  /** kubeconfig file; undefined means in-cluster (service account) or the default loading rules. */
  readonly kubeconfig: string | undefined;
  readonly logLevel: LogLevel;
  /** The web dashboard's listener; undefined when it is off (--dashboard-port 0, the default). */
  readonly dashboard: { readonly host: string; readonly port: number } | undefined;
}

export class ControllerOptionsError extends Error {
  readonly code = 'CONTROLLER_INVALID_OPTIONS';
  constructor(message: string) {
    super(message);
    this.name = 'ControllerOptionsError';
  }
}

/**
 * The keys of Antrea's antrea-controller.conf this controller honours
 * (build/charts/antrea/conf/antrea-controller.conf), camelCase as there. Unknown keys are ignored,
 * as Antrea ignores options of features it lacks.
 */
interface ControllerConfFile {
  featureGates?: Record<string, boolean>;
  enablePrometheusMetrics?: boolean;
  apiPort?: number;
  selfSignedCert?: boolean;
  nodeIPAM?: {
    enableNodeIPAM?: boolean;
    clusterCIDRs?: string[];
    nodeCIDRMaskSizeIPv4?: number;
    nodeCIDRMaskSizeIPv6?: number;
  };
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('want an integer 0-65535');
  return n;
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/**
 * Merges defaults < config file < flags (and POD_NAME, POD_NAMESPACE, NODE_NAME from the
 * environment, which the Deployment sets from the downward API), validates and deep-freezes.
 */
export function loadOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ControllerOptions {
  const program = new Command('antrea-controller')
    .description('Antrea-TS controller: policy computation, controlplane API server, NodeIPAM')
    .exitOverride()
    .version(VERSION)
    .option('--config <file>', 'antrea-controller.conf (YAML)')
    .option('--kubeconfig <file>', 'kubeconfig (default: in-cluster)')
    .option('--bind-address <ip>', 'address the API server listens on', '0.0.0.0')
    .option('--api-port <port>', `API server port (default ${CONTROLLER_API_PORT})`, port)
    .option(
      '--service <namespace/name>',
      'Service in front of the API (APIService target)',
      'kube-system/antrea',
    )
    .option('--service-port <port>', 'port of that Service', port, 443)
    .option('--no-publish-ca-bundle', 'do not publish antrea-ca nor register the APIServices')
    .option('--no-webhooks', 'do not serve the admission webhooks (/validate/*, /mutate/*)')
    .option('--enable-node-ipam', 'allocate Node podCIDRs (nodeIPAM.enableNodeIPAM)')
    .option(
      '--cluster-cidrs <cidrs>',
      'comma-separated cluster CIDRs, one per IP family (nodeIPAM.clusterCIDRs)',
    )
    .option('--controller-info-interval <seconds>', 'AntreaControllerInfo heartbeat period', '60')
    .option('--dashboard-port <port>', 'serve the web dashboard on this port (0: off)', port, 0)
    .option('--dashboard-bind-address <ip>', 'address the dashboard listens on', '127.0.0.1')
    .addOption(
      new Option('--log-level <level>', 'pino log level')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    );
  program.parse([...argv]);
  const o = program.opts<{
    config?: string;
    kubeconfig?: string;
    bindAddress: string;
    apiPort?: number;
    service: string;
    servicePort: number;
    publishCaBundle: boolean;
    webhooks: boolean;
    enableNodeIpam?: boolean;
    clusterCidrs?: string;
    controllerInfoInterval: string;
    dashboardPort: number;
    dashboardBindAddress: string;
    logLevel: LogLevel;
  }>();
  const file: ControllerConfFile = o.config
    ? ((parseYaml(readFileSync(o.config, 'utf8')) as ControllerConfFile | null) ?? {})
    : {};
  const fail = (msg: string): never => {
    throw new ControllerOptionsError(msg);
  };

  if (file.selfSignedCert === false) fail('selfSignedCert: false is not supported (no certificate files)');
  if (isIP(o.bindAddress) === 0)
    fail(`--bind-address: ${JSON.stringify(o.bindAddress)} is not an IP address`);
  const apiPort = o.apiPort ?? file.apiPort ?? CONTROLLER_API_PORT;
  if (!Number.isInteger(apiPort) || apiPort < 0 || apiPort > 65535)
    fail(`apiPort ${apiPort} is out of range`);
  const [svcNamespace, svcName, extra] = o.service.split('/');
  if (!svcNamespace || !svcName || extra !== undefined) fail('--service: want namespace/name');
  if (isIP(o.dashboardBindAddress) === 0)
    fail(`--dashboard-bind-address: ${JSON.stringify(o.dashboardBindAddress)} is not an IP address`);
  const interval = Number(o.controllerInfoInterval);
  if (!(interval > 0)) fail('--controller-info-interval: want a positive number of seconds');

  const ipamFile = file.nodeIPAM ?? {};
  const ipamEnabled = o.enableNodeIpam ?? ipamFile.enableNodeIPAM ?? false;
  const cidrs =
    o.clusterCidrs !== undefined
      ? o.clusterCidrs.split(',').map((s) => s.trim())
      : (ipamFile.clusterCIDRs ?? []);
  let nodeIPAM: AntreaControllerConfig['nodeIPAM'];
  if (ipamEnabled) {
    if (cidrs.length === 0 || cidrs.length > 2) fail('nodeIPAM: one or two clusterCIDRs are required');
    const clusterCIDRs = cidrs.map((c) => {
      const nodeMaskSize = c.includes(':')
        ? (ipamFile.nodeCIDRMaskSizeIPv6 ?? 64)
        : (ipamFile.nodeCIDRMaskSizeIPv4 ?? 24);
      try {
        new CidrAllocator({ clusterCIDR: c, nodeMaskSize });
      } catch (err) {
        fail(`nodeIPAM: ${(err as Error).message}`);
      }
      return { clusterCIDR: c, nodeMaskSize };
    });
    if (
      clusterCIDRs.length === 2 &&
      clusterCIDRs[0]!.clusterCIDR.includes(':') === clusterCIDRs[1]!.clusterCIDR.includes(':')
    ) {
      fail('nodeIPAM: dual-stack needs one IPv4 and one IPv6 cluster CIDR');
    }
    nodeIPAM = { clusterCIDRs };
  }

  const gates = file.featureGates ?? {};
  const podName = env['POD_NAME'];
  const podNamespace = env['POD_NAMESPACE'];
  const controller: AntreaControllerConfig = {
    version: VERSION,
    bindAddress: o.bindAddress,
    apiPort,
    service: { namespace: svcNamespace!, name: svcName!, port: o.servicePort },
    publishCaBundle: o.publishCaBundle,
    webhooks: o.webhooks,
    antreaPolicy: gates['AntreaPolicy'] ?? true,
    adminNetworkPolicy: gates['AdminNetworkPolicy'] ?? false,
    serviceExternalIP: gates['ServiceExternalIP'] ?? false,
    enablePrometheusMetrics: file.enablePrometheusMetrics ?? true,
    controllerInfoIntervalMs: interval * 1000,
    ...(nodeIPAM ? { nodeIPAM } : {}),
    ...(podName && podNamespace ? { podRef: { name: podName, namespace: podNamespace } } : {}),
    ...(env['NODE_NAME'] ? { nodeName: env['NODE_NAME'] } : {}),
  };
  const dashboard = o.dashboardPort > 0 ? { host: o.dashboardBindAddress, port: o.dashboardPort } : undefined;
  return deepFreeze({ controller, kubeconfig: o.kubeconfig, logLevel: o.logLevel, dashboard });
}
