import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { CniCmdRequest, CniCmdResponse, CniRpcMethod } from '../codec/cni-messages.js';
import { CNI_RPC_METHODS, cniServiceDefinition } from '../server/service-definition.js';

/** What the fake agent answers to one call. */
export type FakeReply =
  /** CniCmdResponse.cni_result; objects are JSON-encoded. */
  | { readonly result: string | Uint8Array | object }
  /** CniCmdResponse.error with an Antrea ErrorCode. */
  | { readonly error: { readonly code: number; readonly message: string } }
  /** A gRPC status instead of a response. */
  | { readonly grpcStatus: number; readonly details?: string }
  /** Never answer (until the fake stops): exercises the client's deadline. */
  | { readonly hang: true };

export type FakeReplyFn = (request: CniCmdRequest) => FakeReply | Promise<FakeReply>;

export interface RecordedCall {
  readonly method: CniRpcMethod;
  readonly request: CniCmdRequest;
  /** The grpc-timeout the client sent, as grpc-js reports it (ms from now), if any. */
  readonly deadline: number | undefined;
}

export interface FakeCniAgentOptions {
  /** Where to listen; a fresh temp dir is used (and removed on stop) when omitted. */
  readonly socketPath?: string;
  /** Methods to register; the others answer UNIMPLEMENTED, as an agent of another API version would. */
  readonly methods?: readonly CniRpcMethod[];
}

/** A plausible CNI 1.0 ADD result, what the real agent returns for a Pod on its podCIDR. */
export function sampleAddResult(cniVersion = '1.0.0'): object {
  return {
    cniVersion,
    interfaces: [
      { name: 'pod1-6b5f0e', mac: '5e:a1:93:0f:1b:20' },
      { name: 'eth0', mac: '3a:7c:1e:d2:52:11', sandbox: '/var/run/netns/cni-1' },
    ],
    ips: [{ interface: 1, address: '10.10.1.5/24', gateway: '10.10.1.1' }],
    routes: [{ dst: '0.0.0.0/0', gw: '10.10.1.1' }],
    dns: {},
  };
}

const encoder = new TextEncoder();

function toResponse(reply: { result: string | Uint8Array | object }): CniCmdResponse {
  const r = reply.result;
  const bytes = r instanceof Uint8Array ? r : encoder.encode(typeof r === 'string' ? r : JSON.stringify(r));
  return { cniResult: bytes };
}

/**
 * A test double of the agent's CNI gRPC server: a real @grpc/grpc-js server on a unix socket that
 * records every request and answers from a script (per-method queues, then a per-method default).
 */
export class FakeCniAgent {
  readonly calls: RecordedCall[] = [];
  private readonly queues = new Map<CniRpcMethod, FakeReplyFn[]>();
  private readonly defaults = new Map<CniRpcMethod, FakeReplyFn>();
  private readonly hanging = new Set<() => void>();
  private stopped = false;

  private constructor(
    private readonly server: Server,
    readonly socketPath: string,
    private readonly tempDir: string | undefined,
  ) {
    this.defaults.set('CmdAdd', (req) => ({ result: sampleAddResult(versionOf(req)) }));
    this.defaults.set('CmdCheck', () => ({ result: '' }));
    this.defaults.set('CmdDel', () => ({ result: '' }));
  }

  static async start(options: FakeCniAgentOptions = {}): Promise<FakeCniAgent> {
    const tempDir = options.socketPath ? undefined : await mkdtemp(join(tmpdir(), 'antrea-cni-'));
    const socketPath = options.socketPath ?? join(tempDir!, 'cni.sock');
    const server = new Server();
    const methods = options.methods ?? CNI_RPC_METHODS;
    const agent: FakeCniAgent = new FakeCniAgent(server, socketPath, tempDir);
    const impl: UntypedServiceImplementation = {};
    for (const m of methods)
      impl[m] = (call: ServerUnaryCall<CniCmdRequest, CniCmdResponse>, cb: sendUnaryData<CniCmdResponse>) =>
        agent.handle(m, call, cb);
    server.addService(cniServiceDefinition(methods), impl);
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix:${socketPath}`, ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    return agent;
  }

  /** Queues the reply for the next call of `method` (FIFO); after the queue, the default answers. */
  enqueue(method: CniRpcMethod, reply: FakeReply | FakeReplyFn): this {
    const fn = typeof reply === 'function' ? reply : () => reply;
    const q = this.queues.get(method) ?? [];
    q.push(fn);
    this.queues.set(method, q);
    return this;
  }

  /** Replaces the answer given when the method's queue is empty. */
  setDefault(method: CniRpcMethod, reply: FakeReply | FakeReplyFn): this {
    this.defaults.set(method, typeof reply === 'function' ? reply : () => reply);
    return this;
  }

  callsOf(method: CniRpcMethod): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  private async handle(
    method: CniRpcMethod,
    call: ServerUnaryCall<CniCmdRequest, CniCmdResponse>,
    cb: sendUnaryData<CniCmdResponse>,
  ): Promise<void> {
    const deadline = call.getDeadline();
    this.calls.push({
      method,
      request: call.request,
      deadline:
        deadline instanceof Date
          ? deadline.getTime() - Date.now()
          : Number.isFinite(deadline)
            ? deadline - Date.now()
            : undefined,
    });
    const fn = this.queues.get(method)?.shift() ?? this.defaults.get(method)!;
    let reply: FakeReply;
    try {
      reply = await fn(call.request);
    } catch (err) {
      cb({ code: 2, details: `fake agent script failed: ${(err as Error).message}` });
      return;
    }
    if ('hang' in reply) {
      const release = () => cb({ code: 1, details: 'fake agent stopped' });
      this.hanging.add(release);
      call.on('cancelled', () => this.hanging.delete(release));
      return;
    }
    if ('grpcStatus' in reply) cb({ code: reply.grpcStatus, details: reply.details ?? '' });
    else if ('error' in reply)
      cb(null, { cniResult: new Uint8Array(0), error: { ...reply.error, details: [] } });
    else cb(null, toResponse(reply));
  }

  /** Stops serving at once (open calls are cancelled) and removes the temp dir. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const release of this.hanging) release();
    this.hanging.clear();
    this.server.forceShutdown();
    if (this.tempDir) await rm(this.tempDir, { recursive: true, force: true });
  }
}

function versionOf(req: CniCmdRequest): string {
  try {
    const v = JSON.parse(new TextDecoder().decode(req.cniArgs?.networkConfiguration))?.cniVersion;
    return typeof v === 'string' ? v : '1.0.0';
  } catch {
    return '1.0.0';
  }
}
