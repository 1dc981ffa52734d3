import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { CniCmdRequest, CniCmdResponse, CniRpcMethod } from '../codec/cni-messages.js';
import { type CniError, isCniError } from '../errors.js';
import { AntreaErrorCode } from '../spec/error-codes.js';
import { SUPPORTED_CNI_VERSIONS } from '../spec/versions.js';
import { parseK8sCniArgs } from './k8s-args.js';
import { KeyedSerializer } from './keyed-serializer.js';
import type { CniRequest, PodConfigurator } from './pod-configurator.js';
import { CNI_RPC_METHODS, cniServiceDefinition } from './service-definition.js';

export interface CniServerOptions {
  /** Where to listen; /var/run/antrea/cni.sock in a cluster. */
  readonly socketPath: string;
  readonly configurator: PodConfigurator;
  readonly logger: Logger;
  /** CNI versions accepted in network configurations; Antrea accepts libcni's version.All. */
  readonly supportedVersions?: readonly string[];
}

const COMMAND_OF: Readonly<Record<CniRpcMethod, CniRequest['command']>> = {
  CmdAdd: 'ADD',
  CmdCheck: 'CHECK',
  CmdDel: 'DEL',
};

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function errorResponse(code: number, message: string): CniCmdResponse {
  return { cniResult: EMPTY, error: { code, message, details: [] } };
}

/**
 * The agent side of the CNI contract: serves service Cni on a unix socket only root can connect to,
 * validates each request as Antrea's cniserver does, serializes requests per container and hands the
 * work to the injected PodConfigurator. Failures are answered as CniCmdResponse.error, never as gRPC
 * statuses, so that the plugin reports the agent's code unchanged.
 */
export class CniServer {
  private readonly log: Logger;
  private readonly serializer = new KeyedSerializer();
  private readonly supported: readonly string[];
  private server: Server | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: CniServerOptions) {
    this.log = options.logger.child({ component: 'cni-server' });
    this.supported = options.supportedVersions ?? SUPPORTED_CNI_VERSIONS;
  }

  /** Binds the socket (mode 0600) and serves until stop() or the signal aborts. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.server) throw new Error('CniServer already started');
    const { socketPath } = this.options;
    await mkdir(dirname(socketPath), { recursive: true });
    // A socket file left by a previous agent would make bind fail with EADDRINUSE.
    await rm(socketPath, { force: true });
    // Bind under a temporary name, restrict it, then rename it into place: the socket is never
    // reachable at the well-known path with the umask's default mode.
    const staging = join(dirname(socketPath), `.${process.pid}.cni.sock.tmp`);
    await rm(staging, { force: true });
    const server = new Server();
    const impl: UntypedServiceImplementation = {};
    for (const m of CNI_RPC_METHODS) {
      impl[m] = (call: ServerUnaryCall<CniCmdRequest, CniCmdResponse>, cb: sendUnaryData<CniCmdResponse>) => {
        const aborter = new AbortController();
        call.on('cancelled', () => aborter.abort(new Error('CNI request cancelled by the plugin')));
        this.handle(m, call.request, aborter.signal).then(
          (resp) => cb(null, resp),
          // handle() answers failures in the response; this is a bug, reported as a gRPC status.
          (err: unknown) => cb({ code: 13, details: (err as Error).message }),
        );
      };
    }
    server.addService(cniServiceDefinition(), impl);
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix:${staging}`, ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    this.server = server;
    await chmod(staging, 0o600);
    await rename(staging, socketPath);
    this.log.info({ socketPath }, 'CNI server listening');
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** Stops accepting calls, waits briefly for running ones, removes the socket. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const server = this.server;
      if (!server) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      await rm(this.options.socketPath, { force: true });
      this.log.info('CNI server stopped');
    })();
    return this.stopping;
  }

  /** One RPC, transport aside; exposed for in-process tests. */
  async handle(method: CniRpcMethod, request: CniCmdRequest, signal: AbortSignal): Promise<CniCmdResponse> {
    const command = COMMAND_OF[method];
    const parsed = this.validate(command, request, signal);
    if ('cniResult' in parsed) return parsed;
    const req = parsed;
    const log = this.log.child({ command, containerId: req.args.containerId });
    log.info('CNI request received');
    return this.serializer.run(req.containerKey, async () => {
      try {
        if (command === 'ADD') return { cniResult: await this.add(req, log) };
        if (command === 'CHECK') await this.options.configurator.check(req);
        else await this.options.configurator.del(req);
        log.info('CNI request succeeded');
        return { cniResult: EMPTY };
      } catch (err) {
        const fallback =
          command === 'CHECK'
            ? AntreaErrorCode.CHECK_INTERFACE_FAILURE
            : AntreaErrorCode.CONFIG_INTERFACE_FAILURE;
        const code = isCniError(err) && err.code === 'CNI_ERROR' ? (err as CniError).cniCode : fallback;
        const message =
          isCniError(err) && err.code === 'CNI_ERROR' ? (err as CniError).msg : (err as Error).message;
        log.error({ err, code }, 'CNI request failed');
        return errorResponse(code, message);
      }
    });
  }

  private async add(req: CniRequest, log: Logger): Promise<Uint8Array> {
    try {
      const result = await this.options.configurator.add(req);
      log.info('CNI request succeeded');
      return result instanceof Uint8Array ? result : encoder.encode(JSON.stringify(result));
    } catch (err) {
      // Antrea rolls a failed ADD back with a DEL so the runtime's retry starts clean. Still under the
      // container's turn in the serializer, so no other request sees the half-built state.
      try {
        await this.options.configurator.del({ ...req, command: 'DEL' });
      } catch (rollbackErr) {
        log.warn({ err: rollbackErr }, 'rollback of failed ADD failed');
      }
      throw err;
    }
  }

  private validate(
    command: CniRequest['command'],
    request: CniCmdRequest,
    signal: AbortSignal,
  ): CniRequest | CniCmdResponse {
    const decodingFailure = errorResponse(
      AntreaErrorCode.DECODING_FAILURE,
      'Failed to decode network config',
    );
    const args = request.cniArgs;
    if (!args) return decodingFailure;
    let netConf: Record<string, unknown>;
    let k8s: ReturnType<typeof parseK8sCniArgs>;
    try {
      const value: unknown = JSON.parse(decoder.decode(args.networkConfiguration));
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return decodingFailure;
      netConf = value as Record<string, unknown>;
      k8s = parseK8sCniArgs(args.args);
    } catch {
      return decodingFailure;
    }
    const cniVersion = typeof netConf['cniVersion'] === 'string' ? netConf['cniVersion'] : '';
    if (!this.supported.includes(cniVersion)) {
      return errorResponse(
        AntreaErrorCode.INCOMPATIBLE_CNI_VERSION,
        `Unsupported CNI version [${cniVersion}], supported versions [${this.supported.join(' ')}]`,
      );
    }
    return {
      command,
      args,
      netConf,
      cniVersion,
      k8s,
      containerKey: k8s.podInfraContainerId || args.containerId,
      signal,
    };
  }
}
