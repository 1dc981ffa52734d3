import type { CniAgent } from '../client/agent-client.js';
import type { AgentConnector } from './run-plugin.js';

/**
 * The agent's CNI socket. Same value as CNI_SOCKET_PATH in @antrea-ts/apis (a test keeps them equal);
 * repeated here so the plugin's start-up does not load the apis package and its protobuf runtime.
 */
export const DEFAULT_CNI_SOCKET_PATH = '/var/run/antrea/cni.sock';

export interface SocketAgentOptions {
  /** The agent's CNI socket, /var/run/antrea/cni.sock in a cluster. */
  readonly socketPath: string;
  /** Deadline of one CNI command, sent to the agent as grpc-timeout. */
  readonly timeoutMs: number;
  /**
   * 'h2' (default): the package's own unary client on node:http2. 'grpc-js': @grpc/grpc-js, ~100 ms
   * more per invocation; kept selectable for comparison and as a fallback.
   */
  readonly transport?: 'h2' | 'grpc-js';
}

/**
 * Connects to the agent over its unix socket. The client, codec and node:http2 are imported on first
 * use, so commands answered without the agent (VERSION, GC, validation errors) never load them.
 */
export function socketAgentConnector(options: SocketAgentOptions): AgentConnector {
  return {
    async connect(): Promise<CniAgent> {
      const { AgentClient } = await import('../client/agent-client.js');
      if (options.transport === 'grpc-js') {
        const { GrpcJsUnaryTransport } = await import('../transport/grpc-js-unary-transport.js');
        return new AgentClient(new GrpcJsUnaryTransport(options.socketPath), options.timeoutMs);
      }
      const { H2UnaryTransport } = await import('../transport/h2-unary-transport.js');
      return new AgentClient(new H2UnaryTransport(options.socketPath), options.timeoutMs);
    },
    async probe(): Promise<void> {
      const { connect } = await import('node:net');
      await new Promise<void>((resolve, reject) => {
        const socket = connect(options.socketPath);
        const timer = setTimeout(
          () => socket.destroy(new Error(`connect ${options.socketPath}: timed out`)),
          options.timeoutMs,
        );
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.end();
          resolve();
        });
        socket.once('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
    },
  };
}
