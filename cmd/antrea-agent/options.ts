import { readFileSync } from 'node:fs';
import {
  type AgentConfig,
  agentError,
  DEFAULT_CONFIG,
  type FlowExporterFileSection,
  flowExporterConfig,
  makeConfig,
} from '@antrea-ts/agent';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parse as parseYaml } from 'yaml';

export interface AgentOptions {
  readonly agent: AgentConfig;
  /** kubeconfig file; undefined means in-cluster (service account) or the default loading rules. */
  readonly kubeconfig: string | undefined;
  /**
   * Antrea's `kubeAPIServerOverride` as a URL: the kube-apiserver to use instead of the one the
   * kubeconfig (or the in-cluster ClusterIP) names. With proxyAll and no kube-proxy nothing serves
   * that ClusterIP before the agent itself does, so the agent needs a direct address.
   */
  readonly kubeAPIServerOverride: string | undefined;
  /** Directory of ovsdb-server's db.sock and the bridges' .mgmt sockets. */
  readonly ovsRunDir: string;
  /** Directory of np.log, the audit log of rules with enableLogging. */
  readonly policyAuditLogDir: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The --config file (its text goes into support bundles, redacted). */
  readonly configFile: string | undefined;
  /** Directories whose files go into support bundles besides the audit log dir. */
  readonly bundleLogDirs: readonly string[];
}

/**
 * The keys of Antrea's antrea-agent.conf this agent honours (build/charts/antrea/conf/antrea-agent.conf),
 * camelCase as there. Unknown keys are ignored, as Antrea ignores options of features it lacks.
 */
interface AgentConfFile {
  ovsBridge?: string;
  ovsDatapathType?: 'system' | 'netdev';
  hostGateway?: string;
  trafficEncapMode?: string;
  tunnelType?: string;
  defaultMTU?: number;
  noSNAT?: boolean;
  apiPort?: number;
  cniSocket?: string;
  cniBinDir?: string;
  hostLocalDataDir?: string;
  cniConfDir?: string;
  disableTXChecksumOffload?: boolean;
  antreaProxy?: {
    enable?: boolean;
    skipServices?: string[];
    proxyAll?: boolean;
    serviceProxyName?: string;
    proxyLoadBalancerIPs?: boolean;
    nodePortAddresses?: string[] | null;
  };
  serviceCIDR?: string;
  kubeAPIServerOverride?: string;
  dnsServerOverride?: string;
  fqdnCacheMinTTL?: number;
  featureGates?: Record<string, boolean>;
  nodePortLocal?: { enable?: boolean; portRange?: string };
  flowExporter?: FlowExporterFileSection;
  egress?: { exceptCIDRs?: string[] | null; maxEgressIPsPerNode?: number };
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('want an integer 0-65535');
  return n;
}

/**
 * `kubeAPIServerOverride` as Antrea (client-go) reads it: a host, a host:port or a URL; without a
 * scheme it is https.
 */
export function apiServerUrl(value: string): string {
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error(parsed.protocol);
  } catch {
    throw agentError(
      'AGENT_CONFIG_INVALID',
      `kubeAPIServerOverride ${JSON.stringify(value)}: want a host, host:port or an http(s) URL`,
    );
  }
  return url.replace(/\/+$/, '');
}

const ENCAP: Record<string, AgentConfig['trafficEncapMode']> = {
  encap: 'encap',
  noencap: 'noEncap',
  hybrid: 'hybrid',
  networkpolicyonly: 'networkPolicyOnly',
};

/**
 * Merges defaults < config file < flags (and NODE_NAME from the environment, which the DaemonSet
 * sets from the downward API), validates through makeConfig and freezes the result.
 */
export function loadOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): AgentOptions {
  const program = new Command('antrea-agent')
    .description('Antrea-TS agent: br-int pipeline, Node routes, SNAT, CNI server and agent API')
    .exitOverride()
    .option('--config <file>', 'antrea-agent.conf (YAML)')
    .option('--kubeconfig <file>', 'kubeconfig (default: in-cluster)')
    .option('--node-name <name>', 'this Node (default: $NODE_NAME)')
    .option('--ovs-run-dir <dir>', 'Open vSwitch run directory', '/var/run/openvswitch')
    .option('--ovs-datapath-type <type>', 'system (kernel) or netdev (userspace)')
    .option('--traffic-encap-mode <mode>', 'encap, noEncap, hybrid or networkPolicyOnly')
    .option('--tunnel-type <type>', 'geneve, vxlan, gre or stt')
    .option('--cni-socket <path>', 'CNI server socket')
    .option('--cni-bin-dir <dir>', 'directory of the host-local plugin')
    .option('--host-local-data-dir <dir>', 'host-local IPAM data directory')
    // Opt-in: in a cluster Antrea's install-cni init container writes the conflist, and lab agents
    // share the host's filesystem, so the agent writes nothing outside its own paths by default.
    .option('--cni-conf-dir <dir>', 'install 10-antrea.conflist there once serving (e.g. /etc/cni/net.d)')
    .option('--api-port <port>', 'agent API port', port)
    .option('--api-bind-address <address>', 'address the agent API listens on (default 0.0.0.0)')
    .option(
      '--api-token-file <path>',
      'loopback token file for antctl on this Node (default /var/run/antrea/apiserver/loopback-client-token)',
    )
    .option(
      '--policy-audit-log-dir <dir>',
      'directory of np.log (rules with enableLogging)',
      '/var/log/antrea/networkpolicy',
    )
    .option(
      '--bundle-log-dir <dir>',
      "also put this directory's files into support bundles (repeatable; e.g. /var/log/openvswitch)",
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .addOption(
      new Option('--log-level <level>', 'pino log level')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    );
  program.parse([...argv]);
  const o = program.opts<{
    config?: string;
    kubeconfig?: string;
    nodeName?: string;
    ovsRunDir: string;
    ovsDatapathType?: string;
    trafficEncapMode?: string;
    tunnelType?: string;
    cniSocket?: string;
    cniBinDir?: string;
    hostLocalDataDir?: string;
    cniConfDir?: string;
    apiPort?: number;
    apiBindAddress?: string;
    apiTokenFile?: string;
    policyAuditLogDir: string;
    bundleLogDir: string[];
    logLevel: AgentOptions['logLevel'];
  }>();
  const file: AgentConfFile = o.config
    ? ((parseYaml(readFileSync(o.config, 'utf8')) as AgentConfFile | null) ?? {})
    : {};
  const pick = <T>(...vs: Array<T | undefined>): T | undefined => vs.find((v) => v !== undefined);
  const encapText = pick(o.trafficEncapMode, file.trafficEncapMode);
  const partial: Partial<AgentConfig> = {};
  const set = <K extends keyof AgentConfig>(k: K, v: AgentConfig[K] | undefined) => {
    if (v !== undefined) (partial as Record<string, unknown>)[k] = v;
  };
  set('bridgeName', file.ovsBridge);
  set(
    'datapathType',
    pick(o.ovsDatapathType, file.ovsDatapathType) as AgentConfig['datapathType'] | undefined,
  );
  set('gatewayName', file.hostGateway);
  set(
    'trafficEncapMode',
    encapText === undefined ? undefined : (ENCAP[encapText.toLowerCase()] ?? (encapText as never)),
  );
  set('tunnelType', pick(o.tunnelType, file.tunnelType) as AgentConfig['tunnelType'] | undefined);
  set('defaultMtu', file.defaultMTU);
  set('snat', file.noSNAT === undefined ? undefined : !file.noSNAT);
  set('apiPort', pick(o.apiPort, file.apiPort));
  set('apiBindAddress', o.apiBindAddress);
  set('apiLoopbackTokenPath', o.apiTokenFile);
  set('cniSocket', pick(o.cniSocket, file.cniSocket));
  set('cniBinDir', pick(o.cniBinDir, file.cniBinDir));
  set('hostLocalDataDir', pick(o.hostLocalDataDir, file.hostLocalDataDir));
  set('cniConfDir', pick(o.cniConfDir, file.cniConfDir));
  set('disableTxChecksumOffload', file.disableTXChecksumOffload);
  const proxy = file.antreaProxy ?? {};
  set('antreaProxy', {
    enable: proxy.enable ?? DEFAULT_CONFIG.antreaProxy.enable,
    skipServices: proxy.skipServices ?? DEFAULT_CONFIG.antreaProxy.skipServices,
    proxyAll: proxy.proxyAll ?? DEFAULT_CONFIG.antreaProxy.proxyAll,
    serviceProxyName: proxy.serviceProxyName ?? DEFAULT_CONFIG.antreaProxy.serviceProxyName,
    proxyLoadBalancerIPs: proxy.proxyLoadBalancerIPs ?? DEFAULT_CONFIG.antreaProxy.proxyLoadBalancerIPs,
    nodePortAddresses: proxy.nodePortAddresses ?? DEFAULT_CONFIG.antreaProxy.nodePortAddresses,
  });
  set('serviceCIDR', file.serviceCIDR || undefined);
  set('dnsServerOverride', file.dnsServerOverride);
  set('fqdnCacheMinTTL', file.fqdnCacheMinTTL);
  set('egress', file.featureGates?.['Egress']);
  set('serviceExternalIP', file.featureGates?.['ServiceExternalIP']);
  set('trafficControl', file.featureGates?.['TrafficControl']);
  set('packetCapture', file.featureGates?.['PacketCapture']);
  set('nodeNetworkPolicy', file.featureGates?.['NodeNetworkPolicy']);
  set('cleanupStaleUDPSvcConntrack', file.featureGates?.['CleanupStaleUDPSvcConntrack']);
  set('flowExporter', flowExporterConfig(file.flowExporter, file.featureGates?.['FlowExporter']));
  set('egressConfig', {
    exceptCIDRs: file.egress?.exceptCIDRs ?? DEFAULT_CONFIG.egressConfig.exceptCIDRs,
    maxEgressIPsPerNode: file.egress?.maxEgressIPsPerNode ?? DEFAULT_CONFIG.egressConfig.maxEgressIPsPerNode,
  });
  // An empty portRange takes the default, as in Antrea.
  set('nodePortLocal', {
    enable: file.nodePortLocal?.enable ?? DEFAULT_CONFIG.nodePortLocal.enable,
    portRange: file.nodePortLocal?.portRange || DEFAULT_CONFIG.nodePortLocal.portRange,
  });
  const agent = makeConfig({ ...partial, nodeName: o.nodeName ?? env['NODE_NAME'] ?? '' });
  return Object.freeze({
    agent,
    kubeconfig: o.kubeconfig,
    kubeAPIServerOverride: file.kubeAPIServerOverride ? apiServerUrl(file.kubeAPIServerOverride) : undefined,
    ovsRunDir: o.ovsRunDir,
    policyAuditLogDir: o.policyAuditLogDir,
    logLevel: o.logLevel,
    configFile: o.config,
    bundleLogDirs: o.bundleLogDir,
  });
}
