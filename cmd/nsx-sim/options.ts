import { Command, InvalidArgumentError, Option } from 'commander';

export interface NsxSimOptions {
  readonly host: string;
  readonly port: number;
  /** JSON state file; undefined keeps state in memory only. */
  readonly stateFile: string | undefined;
  readonly tls: boolean;
  /** Where the generated CA and server certificate go (ca.crt is what clients trust). */
  readonly tlsDir: string | undefined;
  readonly tlsHostnames: readonly string[];
  readonly seed: boolean;
  /** false: no authentication at all. */
  readonly auth: { readonly adminUser: string; readonly adminPassword: string } | false;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('want an integer 0-65535');
  return n;
}

/** Parses argv (node, script, ...flags) into frozen options; throws a commander error on bad input. */
export function loadOptions(argv: readonly string[]): NsxSimOptions {
  const program = new Command('nsx-sim')
    .description(
      'NSX Manager simulator for the Antrea NSX adapter (Policy API, inventory, registration, traceflow, stats)',
    )
    .exitOverride()
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 = any free port)', port, 8443)
    .option('--state-file <path>', 'JSON file the state is loaded from and saved to (atomic rename)')
    .option('--tls', 'serve HTTPS with a CA and server certificate generated at start (default)', true)
    .option('--no-tls', 'serve plain HTTP')
    .option(
      '--tls-dir <dir>',
      'directory for the generated ca.crt/tls.crt/tls.key (default: <state-file>.tls or a temp dir)',
    )
    .option('--tls-hostname <name...>', 'DNS names for the server certificate', ['localhost'])
    .option('--seed', 'load demo groups, services and policies into a fresh state', false)
    .option('--admin-user <user>', 'basic-auth admin user', 'admin')
    .option('--admin-password <password>', 'basic-auth admin password', 'Admin!23Admin')
    .option('--no-auth', 'accept every request as admin')
    .addOption(
      new Option('--log-level <level>', 'pino log level')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    );
  program.parse([...argv]);
  const o = program.opts<{
    host: string;
    port: number;
    stateFile?: string;
    tls: boolean;
    tlsDir?: string;
    tlsHostname: string[];
    seed: boolean;
    adminUser: string;
    adminPassword: string;
    auth: boolean;
    logLevel: NsxSimOptions['logLevel'];
  }>();
  if (o.auth && (o.adminUser === '' || o.adminPassword === '')) {
    throw new InvalidArgumentError('--admin-user and --admin-password must not be empty (or use --no-auth)');
  }
  return Object.freeze({
    host: o.host,
    port: o.port,
    stateFile: o.stateFile,
    tls: o.tls,
    tlsDir: o.tlsDir ?? (o.stateFile ? `${o.stateFile}.tls` : undefined),
    tlsHostnames: Object.freeze([...o.tlsHostname]),
    seed: o.seed,
    auth: o.auth ? Object.freeze({ adminUser: o.adminUser, adminPassword: o.adminPassword }) : false,
    logLevel: o.logLevel,
  });
}
