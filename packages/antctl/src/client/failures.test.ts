import { describe, expect, it } from 'vitest';
import { httpFailure, networkFailure } from './failures.js';

const agg = { kind: 'aggregated', apiService: 'v1beta2.controlplane.antrea.io' } as const;
const status = (o: object) => Buffer.from(JSON.stringify({ kind: 'Status', ...o }));

describe('failure messages tell the user what to do', () => {
  it('503 through the aggregator points at the APIService', () => {
    const e = httpFailure(503, status({ message: 'service unavailable' }), {
      route: agg,
      target: 'https://k:6443',
      subject: 'networkpolicies',
    });
    expect(e.code).toBe('ANTCTL_UNREACHABLE');
    expect(e.message).toBe(
      'cannot reach the Antrea controller through the Kubernetes API (503: service unavailable): is the APIService v1beta2.controlplane.antrea.io available? Check with "kubectl get apiservice v1beta2.controlplane.antrea.io" and "kubectl -n kube-system get pods -l component=antrea-controller"',
    );
  });
  it('a bare 404 on an aggregated list means Antrea is not installed', () => {
    const e = httpFailure(
      404,
      status({ message: 'the server could not find the requested resource', reason: 'NotFound' }),
      {
        route: agg,
        target: 'https://k:6443',
        subject: 'networkpolicies',
      },
    );
    expect(e.code).toBe('ANTCTL_SERVER_ERROR');
    expect(e.message).toContain('is Antrea installed');
    expect(e.message).toContain('kubectl get apiservice v1beta2.controlplane.antrea.io');
  });
  it('a 404 naming the object is "not found"', () => {
    const e = httpFailure(
      404,
      status({ message: 'networkpolicies "np9" not found', reason: 'NotFound', details: { name: 'np9' } }),
      { route: agg, target: 'https://k:6443', subject: 'networkpolicy "np9"', name: 'np9' },
    );
    expect(e.code).toBe('ANTCTL_NOT_FOUND');
    expect(e.message).toBe('networkpolicy "np9" not found (networkpolicies "np9" not found)');
  });
  it("a 404 with the agent's {error} reason is that reason; fastify's unserved-route 404 is not", () => {
    const agent = {
      route: { kind: 'agent' },
      target: 'https://127.0.0.1:10350',
      subject: 'ovstracing',
    } as const;
    const named = httpFailure(404, Buffer.from(JSON.stringify({ error: 'Pod ns1/p9 not found' })), agent);
    expect(named.code).toBe('ANTCTL_NOT_FOUND');
    expect(named.message).toBe('Pod ns1/p9 not found');
    const unserved = httpFailure(
      404,
      Buffer.from(
        JSON.stringify({ message: 'Route GET:/ovstracing not found', error: 'Not Found', statusCode: 404 }),
      ),
      agent,
    );
    expect(unserved.code).toBe('ANTCTL_SERVER_ERROR');
    expect(unserved.message).toContain('https://127.0.0.1:10350 does not serve ovstracing (404: ');
  });
  it('403 names RBAC', () => {
    const e = httpFailure(403, status({ message: 'forbidden' }), {
      route: agg,
      target: 't',
      subject: 'addressgroups',
    });
    expect(e.message).toContain('RBAC');
  });
  it('401 from the agent points at its loopback token, not at the kubeconfig', () => {
    const e = httpFailure(401, status({ message: 'Unauthorized' }), {
      route: { kind: 'agent' },
      target: 'https://127.0.0.1:10350',
      subject: 'podinterfaces',
    });
    expect(e.message).toBe(
      "the Antrea agent API at https://127.0.0.1:10350 did not accept the token (401 Unauthorized: Unauthorized): in agent mode antctl presents the agent's loopback token, read from /var/run/antrea/apiserver/loopback-client-token (or the file ANTCTL_AGENT_TOKEN_FILE names); run it as root on the agent's Node (or in its Pod)",
    );
  });
  it('connection refused to the agent suggests --agent-address and --mode', () => {
    const e = networkFailure(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:10350'), { code: 'ECONNREFUSED' }),
      {
        route: { kind: 'agent' },
        target: 'http://127.0.0.1:10350',
        subject: 'agentinfo',
      },
    );
    expect(e.code).toBe('ANTCTL_UNREACHABLE');
    expect(e.message).toBe(
      'cannot reach the Antrea agent API at http://127.0.0.1:10350: is antrea-agent running on this Node? (agent mode; --agent-address points elsewhere, --mode controller goes through the Kubernetes API) (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:10350)',
    );
  });
  it('connection refused to the Kubernetes API suggests kubeconfig checks', () => {
    const e = networkFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), {
      route: agg,
      target: 'https://127.0.0.1:1',
      subject: 'networkpolicies',
    });
    expect(e.message).toContain(
      'cannot reach the Kubernetes API at https://127.0.0.1:1: check --kubeconfig / KUBECONFIG',
    );
  });
});
