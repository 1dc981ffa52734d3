import { constants as h2, connect as h2connect } from 'node:http2';
import { connect as netConnect } from 'node:net';
import {
  decodeGrpcMessage,
  encodeGrpcTimeout,
  frameMessage,
  grpcStatusFromHttp,
  unframeUnary,
} from '../codec/grpc-frame.js';
import { AgentRpcError } from '../errors.js';
import { GrpcStatus } from '../spec/error-codes.js';
import type { UnaryTransport } from './unary-transport.js';

/**
 * A unary gRPC client over node:http2 on a unix socket, one connection per call. The plugin makes
 * exactly one call per process, so the connection management of @grpc/grpc-js buys nothing here,
 * while loading it costs ~100 ms of every Pod's sandbox set-up (see bench/startup.ts).
 */
export class H2UnaryTransport implements UnaryTransport {
  constructor(private readonly socketPath: string) {}

  call(path: string, request: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const socketPath = this.socketPath;
    return new Promise<Uint8Array>((resolve, reject) => {
      let settled = false;
      let connected = false;
      const session = h2connect('http://localhost', {
        createConnection: () => {
          const socket = netConnect(socketPath);
          socket.once('connect', () => {
            connected = true;
          });
          return socket;
        },
      });

      const finish = (err: Error | undefined, value?: Uint8Array): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        session.destroy();
        if (err) reject(err);
        else resolve(value!);
      };
      const fail = (grpcCode: number, message: string, cause?: unknown) => {
        // "Agent down" only when nothing is there to accept: no socket file, or no listener on it.
        // EACCES or a hung connect are not proof that the agent is gone.
        const code = (cause as NodeJS.ErrnoException | undefined)?.code;
        const agentDown = !connected && (code === 'ENOENT' || code === 'ECONNREFUSED');
        finish(new AgentRpcError(grpcCode, message, agentDown, { cause }));
      };

      const timer = setTimeout(
        () => fail(GrpcStatus.DEADLINE_EXCEEDED, 'context deadline exceeded'),
        timeoutMs,
      );

      session.on('error', (err: NodeJS.ErrnoException) => {
        // Wording follows grpc-go so operators recognise it in kubelet events.
        const desc = connected
          ? `connection error: desc = "transport: ${err.message}"`
          : `connection error: desc = "transport: Error while dialing: dial unix ${socketPath}: ${err.code ?? err.message}"`;
        fail(GrpcStatus.UNAVAILABLE, desc, err);
      });

      const stream = session.request({
        [h2.HTTP2_HEADER_METHOD]: 'POST',
        [h2.HTTP2_HEADER_PATH]: path,
        [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
        [h2.HTTP2_HEADER_TE]: 'trailers',
        'grpc-timeout': encodeGrpcTimeout(timeoutMs),
      });

      let httpStatus = 0;
      let grpcStatus: string | undefined;
      let grpcMessage = '';
      const chunks: Buffer[] = [];
      const takeStatus = (headers: Record<string, unknown>) => {
        const s = headers['grpc-status'];
        if (typeof s === 'string') {
          grpcStatus = s;
          const m = headers['grpc-message'];
          grpcMessage = typeof m === 'string' ? decodeGrpcMessage(m) : '';
        }
      };
      stream.on('response', (headers) => {
        httpStatus = Number(headers[h2.HTTP2_HEADER_STATUS]);
        takeStatus(headers); // trailers-only responses carry the status in the headers
      });
      stream.on('trailers', (trailers) => takeStatus(trailers));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err: NodeJS.ErrnoException) => {
        // The session error (if any) is more telling; let it win when both fire.
        setImmediate(() =>
          fail(GrpcStatus.UNAVAILABLE, `connection error: desc = "transport: ${err.message}"`, err),
        );
      });
      // Evaluate on the next turn: when the socket fails, the stream closes before the session
      // reports why, and the session's error is the one worth showing.
      stream.on('close', () => setImmediate(onClose));
      const onClose = () => {
        if (settled) return;
        if (grpcStatus === undefined) {
          if (httpStatus !== 0 && httpStatus !== 200) {
            fail(
              grpcStatusFromHttp(httpStatus),
              `unexpected HTTP status code received from server: ${httpStatus}`,
            );
          } else if (session.destroyed || session.closed) {
            // The connection went away under the stream (agent crashed or restarted): transient.
            fail(GrpcStatus.UNAVAILABLE, 'error reading from server: EOF');
          } else if (stream.rstCode === h2.NGHTTP2_CANCEL) {
            fail(GrpcStatus.CANCELLED, 'stream cancelled by the server');
          } else if (
            stream.rstCode !== undefined &&
            stream.rstCode !== h2.NGHTTP2_NO_ERROR &&
            stream.rstCode !== h2.NGHTTP2_REFUSED_STREAM
          ) {
            fail(GrpcStatus.INTERNAL, `stream terminated by RST_STREAM with error code: ${stream.rstCode}`);
          } else {
            fail(GrpcStatus.UNAVAILABLE, 'error reading from server: EOF');
          }
          return;
        }
        const code = Number(grpcStatus);
        if (code !== GrpcStatus.OK) {
          fail(Number.isInteger(code) ? code : GrpcStatus.UNKNOWN, grpcMessage);
          return;
        }
        try {
          finish(undefined, unframeUnary(Buffer.concat(chunks)));
        } catch (err) {
          fail(
            GrpcStatus.INTERNAL,
            `grpc: failed to unmarshal the received message: ${(err as Error).message}`,
            err,
          );
        }
      };
      stream.end(frameMessage(request));
    });
  }
}
