// Lab helpers for flow-visibility e2e tests (e2e/flowexporter, e2e/flow-aggregator): turn on a
// Node's flow exporter, a client Pod and an echo server Pod behind a ClusterIP Service `web` (port
// 80, named http), and hold a TCP connection open from the client so that its conntrack entry lives
// long enough to be exported.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ManagedProcess } from '@antrea-ts/harness';
import type { Lab } from '@antrea-ts/lab';

/** Appends the FlowExporter gate and flowExporter section to the Node's antrea-agent.conf and restarts the agent. */
export async function enableFlowExporter(lab: Lab, node: string, collector: string): Promise<void> {
  const conf = {
    featureGates: { FlowExporter: true },
    flowExporter: {
      enable: true,
      flowCollectorAddr: collector,
      flowPollInterval: '1s',
      activeFlowExportTimeout: '2s',
      idleFlowExportTimeout: '4s',
    },
  };
  // JSON is YAML: one flow-style document per section, appended after the lab's keys.
  const lines = Object.entries(conf).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  await lab.configureAgent(node, `${lines.join('\n')}\n`);
}

export interface HeldConnection {
  /** Ends the client's input, so the connection closes normally; waits for the client to exit. */
  close(): Promise<void>;
  kill(): void;
}

/** socat in `netns` connects from `sport` to host:port, sends one line and holds on. */
export function holdTcpConnection(netns: string, host: string, port: number, sport: number): HeldConnection {
  const client = spawn(
    'ip',
    ['netns', 'exec', netns, 'socat', '-', `TCP:${host}:${port},sourceport=${sport}`],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  const exited = new Promise<void>((resolve) => client.once('exit', () => resolve()));
  client.stdin.write('hello flows\n');
  return {
    close: async () => {
      client.stdin.end();
      await exited;
    },
    kill: () => {
      client.kill();
    },
  };
}

export interface ClientServer {
  readonly clientIp: string;
  readonly serverIp: string;
  readonly clientNetns: string;
  /** socat echoing on `port` in the server Pod; stop it in afterAll. */
  readonly echo: ManagedProcess;
}

/** Pods `client` (app=client) and `server` (app=server, echo on `port`) and Service `web` 80 -> `port`. */
export async function startClientServer(
  lab: Lab,
  o: { namespace: string; clientNode: string; serverNode: string; port: number; logDir: string },
): Promise<ClientServer> {
  const pod = (name: string, node: string) =>
    lab.createPod({ namespace: o.namespace, name, node, labels: { app: name } });
  const client = await pod('client', o.clientNode);
  const server = await pod('server', o.serverNode);
  const echo = new ManagedProcess({
    name: 'echo-server',
    netns: server.netns,
    argv: ['socat', `TCP-LISTEN:${o.port},fork,reuseaddr`, 'EXEC:cat'],
    logFile: join(o.logDir, 'echo.log'),
  });
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: o.namespace },
    spec: {
      selector: { app: 'server' },
      ports: [{ name: 'http', port: 80, targetPort: o.port, protocol: 'TCP' }],
    },
  };
  await lab.kubectl(['apply', '-f', '-'], { input: JSON.stringify(service) });
  return { clientIp: client.ips[0]!, serverIp: server.ips[0]!, clientNetns: client.netns, echo };
}
