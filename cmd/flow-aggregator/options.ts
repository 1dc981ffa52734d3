import { readFileSync } from 'node:fs';
import {
  FLOW_AGGREGATOR_TLS_NAMES,
  type FlowAggregatorConfig,
  FlowAggregatorError,
  IPFIX_COLLECTOR_PORT,
  parseConfig,
} from '@antrea-ts/flow-aggregator';
import { FLOW_GRPC_PORT } from '@antrea-ts/ipfix';
import { Command, InvalidArgumentError, Option } from 'commander';

export interface FlowAggregatorOptions {
  readonly config: FlowAggregatorConfig;
  /** Address the collecting process and the health endpoints listen on. */
  readonly bindAddress: string;
  /** The IPFIX collecting port (Antrea: 4739). */
  readonly ipfixPort: number;
  /** The gRPC (FlowExportService, mTLS) port (Antrea: 14739). */
  readonly grpcPort: number;
  /** Where the TLS Secrets and the CA ConfigMap live: POD_NAMESPACE in a Pod, else `flow-aggregator`. */
  readonly namespace: string;
  /** Pod metadata and certificate store: this kubeconfig, else in-cluster config when in a Pod, else none. */
  readonly kubeconfig: string | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('want an integer 0-65535');
  return n;
}

/** The file's text; a file that cannot be read is FA_CONFIG, like one that does not parse. */
function readConfig(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new FlowAggregatorError('FA_CONFIG', `cannot read ${path}: ${String(err)}`, { cause: err });
  }
}

/** Parses argv (node, script, ...flags); reads and validates --config. Throws on bad input. */
export function loadOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): FlowAggregatorOptions {
  const program = new Command('flow-aggregator')
    .description(
      "Antrea's Flow Aggregator: collects the agents' IPFIX records, correlates both Nodes' records of a connection, exports them",
    )
    .exitOverride()
    .option('--config <path>', 'flow-aggregator.conf (YAML, Antrea keys)')
    .option('--bind-address <address>', 'address to listen on', '0.0.0.0')
    .option('--ipfix-port <port>', 'IPFIX collecting port (0 = any free port)', port, IPFIX_COLLECTOR_PORT)
    .option(
      '--grpc-port <port>',
      'gRPC flow export port, mutual TLS (0 = any free port)',
      port,
      FLOW_GRPC_PORT,
    )
    .option(
      '--kubeconfig <path>',
      'kubeconfig for the Pod informer and the TLS Secrets (default: in-cluster config inside a Pod)',
    )
    .addOption(
      new Option('--log-level <level>', 'pino log level')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    );
  program.parse([...argv]);
  const o = program.opts<{
    config?: string;
    bindAddress: string;
    ipfixPort: number;
    grpcPort: number;
    kubeconfig?: string;
    logLevel: string;
  }>();
  return Object.freeze({
    config: parseConfig(o.config ? readConfig(o.config) : ''),
    bindAddress: o.bindAddress,
    ipfixPort: o.ipfixPort,
    grpcPort: o.grpcPort,
    namespace: env['POD_NAMESPACE'] || FLOW_AGGREGATOR_TLS_NAMES.namespace,
    kubeconfig: o.kubeconfig,
    logLevel: o.logLevel as FlowAggregatorOptions['logLevel'],
  });
}
