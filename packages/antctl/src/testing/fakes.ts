// Test doubles for antctl: an in-memory ApiClient with canned routes, and deps that capture output.
import type { ApiClient, ApiRequest, ApiResponse } from '../client/api-client.js';
import type { Connections } from '../client/connections.js';
import type { AntctlDeps } from '../context.js';
import type { ModeDecision } from '../mode.js';

export type Handler = (req: ApiRequest) => { status?: number; body?: unknown } | undefined;

export class FakeApiClient implements ApiClient {
  readonly requests: ApiRequest[] = [];
  private readonly routes: { method: string; path: string | RegExp; handler: Handler }[] = [];

  constructor(readonly target: string) {}

  on(method: string, path: string | RegExp, handler: Handler | { status?: number; body?: unknown }): this {
    this.routes.push({ method, path, handler: typeof handler === 'function' ? handler : () => handler });
    return this;
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    this.requests.push(req);
    const method = req.method ?? 'GET';
    for (const r of this.routes) {
      if (r.method !== method) continue;
      if (typeof r.path === 'string' ? r.path !== req.path : !r.path.test(req.path)) continue;
      const res = r.handler(req);
      if (res === undefined) continue;
      const body = res.body;
      return {
        status: res.status ?? 200,
        headers: {},
        body: Buffer.isBuffer(body)
          ? body
          : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body ?? {})),
      };
    }
    return {
      status: 404,
      headers: {},
      body: Buffer.from(
        JSON.stringify({
          kind: 'Status',
          message: 'the server could not find the requested resource',
          reason: 'NotFound',
        }),
      ),
    };
  }
}

/** Connections whose every server is a FakeApiClient. */
export function fakeConnections(mode: ModeDecision): Connections & {
  kubeFake: FakeApiClient;
  controllerDirectFake: FakeApiClient;
  agentFake: FakeApiClient;
} {
  const kubeFake = new FakeApiClient('https://kube.test:6443');
  const controllerDirectFake = new FakeApiClient('https://10.0.0.1:10349');
  const agentFake = new FakeApiClient('http://127.0.0.1:10350');
  return {
    mode,
    kubeFake,
    controllerDirectFake,
    agentFake,
    kube: async () => kubeFake,
    controller: async () =>
      mode.inPod && mode.mode === 'controller'
        ? { client: controllerDirectFake, route: { kind: 'controller' } }
        : { client: kubeFake, route: { kind: 'aggregated', apiService: 'v1beta2.controlplane.antrea.io' } },
    controllerDirect: async () => controllerDirectFake,
    agent: async () => agentFake,
  };
}

export interface CapturedDeps extends AntctlDeps {
  stdoutText(): string;
  stderrText(): string;
  files: Map<string, Buffer | string>;
}

/** Deps with captured output, a fixed clock that advances on sleep, and no real I/O. */
export function captureDeps(overrides: Partial<AntctlDeps> = {}): CapturedDeps {
  let out = '';
  let err = '';
  let clock = Date.UTC(2026, 10, 21, 9, 30, 0);
  const files = new Map<string, Buffer | string>();
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: {},
    version: '0.1.0-test',
    fileExists: () => false,
    readFile: () => {
      throw new Error('no files in tests');
    },
    writeFile: (p, d) => files.set(p, d),
    now: () => new Date(clock),
    sleep: async (ms) => {
      clock += ms;
    },
    randomSuffix: (n) => 'x'.repeat(n),
    files,
    stdoutText: () => out,
    stderrText: () => err,
    ...overrides,
  };
}
