import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrameParser } from '../codec/frame-parser.js';

export interface ScriptedRequest {
  method: string;
  params: unknown[];
  id: unknown;
}

/** What a handler returns: a result, an RPC error, or 'silent' to never answer. */
export type ScriptedReply = { result: unknown } | { error: unknown } | 'silent';

/**
 * A unix-socket JSON-RPC server for unit tests of the transport and client: each test scripts the
 * replies, pushes notifications, and drops connections at will. Not an OVSDB implementation.
 */
export class ScriptedServer {
  readonly path: string;
  readonly requests: ScriptedRequest[] = [];
  readonly sockets = new Set<Socket>();
  private readonly dir: string;
  private server: Server | undefined;
  private waiters: (() => void)[] = [];

  constructor(
    private handler: (req: ScriptedRequest, socket: Socket) => ScriptedReply = () => ({ result: {} }),
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'ovsdb-unit-'));
    this.path = join(this.dir, 'db.sock');
  }

  setHandler(handler: (req: ScriptedRequest, socket: Socket) => ScriptedReply): void {
    this.handler = handler;
  }

  listen(): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    this.server = server;
    return new Promise((resolve) => server.listen(this.path, resolve));
  }

  /** Stops listening and drops every client, like a killed ovsdb-server. */
  async crash(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.crash();
    rmSync(this.dir, { recursive: true, force: true });
  }

  send(json: unknown): void {
    for (const s of this.sockets) s.write(JSON.stringify(json));
  }

  sendRaw(bytes: string): void {
    for (const s of this.sockets) s.write(bytes);
  }

  /** Resolves once `count` requests have been received in total. */
  async waitForRequests(count: number): Promise<void> {
    while (this.requests.length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Resolves once a client is connected. */
  async waitForClient(): Promise<void> {
    while (this.sockets.size === 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const parser = new FrameParser();
    socket.on('data', (chunk: Buffer) => {
      const { messages, error } = parser.push(chunk);
      for (const m of messages) {
        const msg = m as { method?: string; params?: unknown[]; id?: unknown; result?: unknown };
        if (typeof msg.method !== 'string') continue; // replies to our own echo
        const req: ScriptedRequest = { method: msg.method, params: msg.params ?? [], id: msg.id };
        this.requests.push(req);
        const reply = this.handler(req, socket);
        if (reply !== 'silent' && req.id !== null) {
          const body =
            'result' in reply ? { result: reply.result, error: null } : { result: null, error: reply.error };
          socket.write(JSON.stringify({ ...body, id: req.id }));
        }
      }
      if (error) socket.destroy();
      this.notify();
    });
    this.notify();
  }
}
