import type { Traceflow } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../client/api-client.js';
import type { ModeDecision } from '../mode.js';
import { runAntctl } from '../program.js';
import { captureDeps, fakeConnections } from '../testing/fakes.js';
import { buildTraceflow, formatTraceflowTable, packetFromFlow } from './traceflow.js';

const TF = '/apis/crd.antrea.io/v1beta1/traceflows';

describe('packetFromFlow (Antrea parseFlow)', () => {
  it('maps protocol words, ports and flags', () => {
    expect(packetFromFlow('tcp,tcp_dst=80, tcp_flags=2')).toEqual({
      ipHeader: { protocol: 6 },
      transportHeader: { tcp: { dstPort: 80, flags: 2 } },
    });
    expect(packetFromFlow('udp,udp_src=1234,udp_dst=53,ipv6')).toEqual({
      ipv6Header: { nextHeader: 17 },
      transportHeader: { udp: { srcPort: 1234, dstPort: 53 } },
    });
    expect(packetFromFlow('')).toEqual({ ipHeader: {}, transportHeader: {} });
  });
  it('rejects malformed fields', () => {
    expect(() => packetFromFlow('tcp_dst=http')).toThrow(/must be an integer/);
    expect(() => packetFromFlow('a=b=c')).toThrow(/not valid in flow/);
  });
});

describe('buildTraceflow', () => {
  const pod = async () => true;
  const svc = async () => false;
  it('names the Traceflow after its ends with a random suffix and defaults the Namespace', async () => {
    const tf = await buildTraceflow(
      { source: 'web-0', destination: 'prod/db-0', output: 'yaml' },
      10_000,
      pod,
      () => 'abcd1234',
    );
    expect(tf.metadata.name).toBe('web-0-to-prod-db-0-abcd1234');
    expect(tf.spec).toEqual({
      source: { namespace: 'default', pod: 'web-0' },
      destination: { namespace: 'prod', pod: 'db-0' },
      packet: { ipHeader: {}, transportHeader: {} },
      timeout: 10,
    });
  });
  it('tells a Service destination from a Pod and keeps IP destinations', async () => {
    expect(
      (await buildTraceflow({ source: 'a/b', destination: 'a/svc', output: 'yaml' }, 5000, svc, () => 'x'))
        .spec.destination,
    ).toEqual({
      namespace: 'a',
      service: 'svc',
    });
    expect(
      (await buildTraceflow({ source: 'a/b', destination: '10.0.0.9', output: 'yaml' }, 5000, svc, () => 'x'))
        .spec.destination,
    ).toEqual({
      ip: '10.0.0.9',
    });
  });
  it("enforces Antrea's rules on live traffic and dropped-only", async () => {
    await expect(buildTraceflow({ destination: 'a/b', output: 'yaml' }, 1, pod, () => 'x')).rejects.toThrow(
      /provide source/,
    );
    await expect(
      buildTraceflow({ source: '10.0.0.1', destination: 'a/b', output: 'yaml' }, 1, pod, () => 'x'),
    ).rejects.toThrow(/source must be a Pod/);
    await expect(
      buildTraceflow(
        { source: 'a/b', destination: 'a/c', droppedOnly: true, output: 'yaml' },
        1,
        pod,
        () => 'x',
      ),
    ).rejects.toThrow(/--dropped-only works only with live-traffic/);
    const live = await buildTraceflow(
      { destination: 'a/b', liveTraffic: true, droppedOnly: true, output: 'yaml' },
      60_000,
      pod,
      () => 'x',
    );
    expect(live.metadata.name).toBe('any-to-a-b-x');
    expect(live.spec).toMatchObject({ liveTraffic: true, droppedOnly: true, timeout: 60 });
  });
});

const SUCCEEDED = {
  phase: 'Succeeded',
  dataplaneTag: 3,
  results: [
    {
      node: 'node-a',
      role: 'sender',
      timestamp: 1,
      observations: [
        { component: 'SpoofGuard', action: 'Forwarded' },
        {
          component: 'NetworkPolicy',
          componentInfo: 'EgressRule',
          action: 'Forwarded',
          networkPolicy: 'AntreaNetworkPolicy:prod/annp',
          networkPolicyRule: 'allow-db',
        },
        {
          component: 'Forwarding',
          componentInfo: 'Output',
          action: 'Forwarded',
          tunnelDstIP: '192.168.77.11',
        },
      ],
    },
    {
      node: 'node-b',
      role: 'receiver',
      timestamp: 2,
      observations: [
        { component: 'Forwarding', componentInfo: 'Output', action: 'Delivered', pod: 'prod/db-0' },
      ],
    },
  ],
};

async function traceflow(argv: string[], statusAfterPolls: number, status: object | undefined) {
  let fakes: ReturnType<typeof fakeConnections> | undefined;
  let polls = 0;
  let created: Traceflow | undefined;
  const deps = captureDeps({
    connect: (mode: ModeDecision) => {
      fakes = fakeConnections(mode);
      fakes.kubeFake
        .on('GET', '/api/v1/namespaces/prod/pods/db-0', { body: { kind: 'Pod' } })
        .on('POST', TF, (req: ApiRequest) => {
          created = req.body as Traceflow;
          return { status: 201, body: created };
        })
        .on('GET', /^\/apis\/crd.antrea.io\/v1beta1\/traceflows\/.+/, () => {
          polls++;
          return {
            body: { ...created, status: polls >= statusAfterPolls && status ? status : { phase: 'Running' } },
          };
        })
        .on('DELETE', /^\/apis\/crd.antrea.io\/v1beta1\/traceflows\/.+/, { body: {} });
      return fakes;
    },
  });
  const code = await runAntctl(argv, deps);
  return {
    code,
    out: deps.stdoutText(),
    err: deps.stderrText(),
    fakes: fakes as ReturnType<typeof fakeConnections>,
    polls,
  };
}

describe('antctl traceflow against a fake Kubernetes API', () => {
  it('creates, polls until Succeeded, prints yaml and deletes', async () => {
    const r = await traceflow(
      ['traceflow', '-S', 'default/web-0', '-D', 'prod/db-0', '-f', 'tcp,tcp_dst=5432'],
      3,
      SUCCEEDED,
    );
    expect(r.code).toBe(0);
    expect(r.polls).toBe(3);
    const methods = r.fakes.kubeFake.requests.map((q) => `${q.method ?? 'GET'} ${q.path}`);
    expect(methods[0]).toBe('GET /api/v1/namespaces/prod/pods/db-0');
    expect(methods[1]).toBe(`POST ${TF}`);
    expect(methods.at(-1)).toBe(`DELETE ${TF}/default-web-0-to-prod-db-0-xxxxxxxx`);
    expect(r.out).toContain(
      'name: default-web-0-to-prod-db-0-xxxxxxxx\nphase: Succeeded\nsource: default/web-0\ndestination: prod/db-0\nresults:\n',
    );
    expect(r.out).toContain('networkPolicyRule: allow-db');
  });
  it('prints a readable path with -o table', async () => {
    const r = await traceflow(['tf', '-S', 'default/web-0', '-D', 'prod/db-0', '-o', 'table'], 1, SUCCEEDED);
    expect(r.out).toBe(
      [
        'Traceflow default-web-0-to-prod-db-0-xxxxxxxx: Succeeded',
        'From default/web-0 to prod/db-0',
        'NODE   ROLE     COMPONENT     ACTION    DETAILS',
        'node-a sender   SpoofGuard    Forwarded <NONE>',
        'node-a sender   NetworkPolicy Forwarded policy AntreaNetworkPolicy:prod/annp rule allow-db; EgressRule',
        'node-a sender   Forwarding    Forwarded Output; tunnel to 192.168.77.11',
        'node-b receiver Forwarding    Delivered Output; pod prod/db-0',
        '',
      ].join('\n'),
    );
  });
  it('keeps the Traceflow with --keep', async () => {
    const r = await traceflow(
      ['traceflow', '-S', 'default/web-0', '-D', 'prod/db-0', '--keep'],
      1,
      SUCCEEDED,
    );
    expect(r.fakes.kubeFake.requests.some((q) => q.method === 'DELETE')).toBe(false);
  });
  it('times out with advice, prints what it has, and still deletes', async () => {
    const r = await traceflow(
      ['traceflow', '-S', 'default/web-0', '-D', 'prod/db-0', '-t', '3s'],
      99,
      undefined,
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain('timeout waiting for Traceflow default-web-0-to-prod-db-0-xxxxxxxx done (3s)');
    expect(r.out).toContain('phase: Running');
    expect(r.fakes.kubeFake.requests.at(-1)?.method).toBe('DELETE');
  });
  it('explains a missing Traceflow CRD', async () => {
    let fakes: ReturnType<typeof fakeConnections> | undefined;
    const deps = captureDeps({
      connect: (mode) => {
        fakes = fakeConnections(mode);
        return fakes;
      },
    });
    const code = await runAntctl(['traceflow', '-S', 'a/b', '-D', '10.0.0.1'], deps);
    expect(code).toBe(1);
    expect(deps.stderrText()).toContain('kubectl get crd traceflows.crd.antrea.io');
  });
});

describe('formatTraceflowTable', () => {
  it('shows the phase and reason when there are no results', () => {
    const tf = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Traceflow',
      metadata: { name: 't' },
      spec: { source: { namespace: 'a', pod: 'b' }, destination: { ip: '1.2.3.4' } },
      status: { phase: 'Failed', reason: 'Traceflow timeout' },
    } as Traceflow;
    expect(formatTraceflowTable(tf)).toBe('Traceflow t: Failed (Traceflow timeout)\nFrom a/b to 1.2.3.4\n');
  });
});
