import { readFileSync } from 'node:fs';
import { AdapterConfigError } from '@antrea-ts/nsx-adapter';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parse } from 'yaml';

export interface NsxAdapterOptions {
  /** NSX Manager base URL (https://manager or http://127.0.0.1:port for the simulator). */
  readonly nsxUrl: string;
  /** Cluster name in NSX = ClusterControlPlane id = principal identity name = certificate CN. */
  readonly clusterName: string;
  readonly certFile: string | undefined;
  readonly keyFile: string | undefined;
  readonly caFile: string | undefined;
  readonly insecure: boolean;
  readonly nsxUser: string | undefined;
  readonly nsxPassword: string | undefined;
  /** Register the cluster with the client certificate when NSX does not know it. */
  readonly register: boolean;
  /** Where NSX policies are read: the public Policy API (polled) or the simulator's long-poll feed. */
  readonly policySource: 'api' | 'feed';
  /** Policy API poll period (seconds) when policySource is "api"; long-poll window for "feed". */
  readonly policyPollSeconds: number;
  readonly kubeconfig: string | undefined;
  readonly nsxTimeoutSeconds: number;
  readonly inventoryBatchSize: number;
  readonly inventoryBatchPeriodSeconds: number;
  readonly realizeTimeoutSeconds: number;
  readonly statsIntervalSeconds: number;
  /** File server for Antrea SupportBundleCollections (agent/controller bundles); none: adapter archive only. */
  readonly bundleFileServer:
    | {
        readonly url: string;
        readonly authType: 'BearerToken' | 'APIKey' | 'BasicAuthentication';
        readonly authSecret: { readonly name: string; readonly namespace: string };
      }
    | undefined;
  /** Where GET /livez and /healthz are served (port 0: any free port, logged). */
  readonly healthHost: string;
  readonly healthPort: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('want a port number (0-65535)');
  return n;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('want a positive integer');
  return n;
}

/**
 * The real adapter's bootstrap.conf (ConfigMap vmware-system-antrea/bootstrap-config, research notes
 * §2.3): clusterName and NSXManagers; flags override it.
 */
function readBootstrap(file: string): { clusterName?: string; nsxUrl?: string } {
  const doc = parse(readFileSync(file, 'utf8')) as { clusterName?: unknown; NSXManagers?: unknown } | null;
  const managers = Array.isArray(doc?.NSXManagers)
    ? doc.NSXManagers.filter((m): m is string => typeof m === 'string')
    : [];
  const first = managers[0];
  return {
    ...(typeof doc?.clusterName === 'string' ? { clusterName: doc.clusterName } : {}),
    ...(first ? { nsxUrl: first.includes('://') ? first : `https://${first}` } : {}),
  };
}

/** Parses argv (node, script, ...flags), merges the bootstrap file, validates, freezes. */
export function loadOptions(argv: readonly string[]): NsxAdapterOptions {
  const program = new Command('nsx-adapter')
    .description(
      'Antrea NSX adapter: CCP adapter (NSX DFW -> Antrea policies) and MP adapter (inventory, health, stats, troubleshooting)',
    )
    .exitOverride()
    .option('--bootstrap-config <file>', 'bootstrap.conf YAML (clusterName, NSXManagers)')
    .option('--nsx-url <url>', 'NSX Manager URL')
    .option('--cluster-name <name>', 'cluster name in NSX (certificate CN)')
    .option('--cert <file>', 'principal identity client certificate (PEM)')
    .option('--key <file>', 'principal identity private key (PEM)')
    .option('--ca <file>', 'CA bundle for the NSX Manager certificate')
    .option('--insecure', 'do not verify the NSX Manager certificate', false)
    .option('--nsx-user <user>', 'basic-auth user (instead of a client certificate)')
    .option('--nsx-password <password>', 'basic-auth password')
    .option('--register', 'register the cluster with --cert when NSX does not know it', false)
    .addOption(
      new Option(
        '--policy-source <source>',
        'read NSX policies from the public Policy API (polled) or the /rpc feed (long poll; simulator)',
      )
        .choices(['api', 'feed'])
        .default('api'),
    )
    .option('--policy-poll <seconds>', 'Policy API poll period / feed long-poll window', positiveInt, 30)
    .option('--kubeconfig <file>', 'kubeconfig (default: in-cluster or ~/.kube/config)')
    .option('--nsx-timeout <seconds>', 'NSX request timeout (NSXClientTimeout)', positiveInt, 120)
    .option(
      '--inventory-batch-size <n>',
      'inventory objects per request (InventoryBatchSize)',
      positiveInt,
      50,
    )
    .option('--inventory-batch-period <seconds>', 'inventory debounce (InventoryBatchPeriod)', positiveInt, 5)
    .option(
      '--realize-timeout <seconds>',
      'policy realization timeout (RealizeTimeoutSeconds)',
      positiveInt,
      60,
    )
    .option('--bundle-file-server <url>', 'file server (sftp://...) for Antrea SupportBundleCollections')
    .addOption(
      new Option('--bundle-auth-type <type>', 'file server authentication')
        .choices(['BearerToken', 'APIKey', 'BasicAuthentication'])
        .default('BasicAuthentication'),
    )
    .option('--bundle-auth-secret <namespace/name>', 'Secret with the file server credentials')
    .option('--stats-interval <seconds>', 'rule statistics report period', positiveInt, 60)
    .option('--health-host <address>', 'address of the /livez and /healthz endpoint', '127.0.0.1')
    .option('--health-port <port>', 'port of the /livez and /healthz endpoint (0: any free one)', port, 16664)
    .addOption(
      new Option('--log-level <level>', 'pino log level')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    );
  program.parse([...argv]);
  const o = program.opts<{
    bootstrapConfig?: string;
    nsxUrl?: string;
    clusterName?: string;
    cert?: string;
    key?: string;
    ca?: string;
    insecure: boolean;
    nsxUser?: string;
    nsxPassword?: string;
    register: boolean;
    policySource: 'api' | 'feed';
    policyPoll: number;
    kubeconfig?: string;
    nsxTimeout: number;
    inventoryBatchSize: number;
    inventoryBatchPeriod: number;
    realizeTimeout: number;
    statsInterval: number;
    healthHost: string;
    healthPort: number;
    bundleFileServer?: string;
    bundleAuthType: 'BearerToken' | 'APIKey' | 'BasicAuthentication';
    bundleAuthSecret?: string;
    logLevel: NsxAdapterOptions['logLevel'];
  }>();
  const boot = o.bootstrapConfig ? readBootstrap(o.bootstrapConfig) : {};
  const nsxUrl = o.nsxUrl ?? boot.nsxUrl;
  const clusterName = o.clusterName ?? boot.clusterName;
  if (!nsxUrl) throw new AdapterConfigError('--nsx-url (or NSXManagers in --bootstrap-config) is required');
  if (!clusterName)
    throw new AdapterConfigError('--cluster-name (or clusterName in --bootstrap-config) is required');
  if (Boolean(o.cert) !== Boolean(o.key)) throw new AdapterConfigError('--cert and --key go together');
  if (o.register && !o.cert) throw new AdapterConfigError('--register needs --cert');
  if (Boolean(o.nsxUser) !== Boolean(o.nsxPassword))
    throw new AdapterConfigError('--nsx-user and --nsx-password go together');
  let bundleFileServer: NsxAdapterOptions['bundleFileServer'];
  if (o.bundleFileServer) {
    const [namespace, name, extra] = (o.bundleAuthSecret ?? '').split('/');
    if (!namespace || !name || extra !== undefined) {
      throw new AdapterConfigError('--bundle-file-server needs --bundle-auth-secret <namespace>/<name>');
    }
    bundleFileServer = Object.freeze({
      url: o.bundleFileServer,
      authType: o.bundleAuthType,
      authSecret: Object.freeze({ name, namespace }),
    });
  }
  return Object.freeze({
    nsxUrl,
    clusterName,
    certFile: o.cert,
    keyFile: o.key,
    caFile: o.ca,
    insecure: o.insecure,
    nsxUser: o.nsxUser,
    nsxPassword: o.nsxPassword,
    register: o.register,
    policySource: o.policySource,
    policyPollSeconds: o.policyPoll,
    kubeconfig: o.kubeconfig,
    nsxTimeoutSeconds: o.nsxTimeout,
    inventoryBatchSize: o.inventoryBatchSize,
    inventoryBatchPeriodSeconds: o.inventoryBatchPeriod,
    realizeTimeoutSeconds: o.realizeTimeout,
    statsIntervalSeconds: o.statsInterval,
    bundleFileServer,
    healthHost: o.healthHost,
    healthPort: o.healthPort,
    logLevel: o.logLevel,
  });
}
