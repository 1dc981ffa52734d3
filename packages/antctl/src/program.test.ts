import { describe, expect, it } from 'vitest';
import type { ApiRequest } from './client/api-client.js';
import type { ModeDecision } from './mode.js';
import { runAntctl } from './program.js';
import { captureDeps, fakeConnections } from './testing/fakes.js';
import {
  ADDRESS_GROUPS,
  AGENT_INFO,
  APPLIED_TO_GROUPS,
  CONTROLLER_INFO,
  NETWORK_POLICIES,
  POD_INTERFACES,
} from './testing/fixtures.js';

const CP = '/apis/controlplane.antrea.io/v1beta2';

/** Runs antctl against fake servers; returns exit code, output and the fakes (for requests). */
async function antctl(
  argv: string[],
  opts: { podName?: string; setup?: (f: ReturnType<typeof fakeConnections>) => void } = {},
) {
  let fakes: ReturnType<typeof fakeConnections> | undefined;
  const deps = captureDeps({
    env: opts.podName ? { POD_NAME: opts.podName } : {},
    connect: (mode: ModeDecision) => {
      fakes = fakeConnections(mode);
      fakes.kubeFake
        .on('GET', `${CP}/networkpolicies`, { body: NETWORK_POLICIES })
        .on('GET', `${CP}/addressgroups`, { body: ADDRESS_GROUPS })
        .on('GET', `${CP}/appliedtogroups`, { body: APPLIED_TO_GROUPS })
        .on('GET', '/apis/system.antrea.io/v1beta1/controllerinfos/antrea-controller', {
          body: CONTROLLER_INFO,
        })
        .on('GET', /^\/apis\/controlplane.antrea.io\/v1beta2\/networkpolicies\/.+/, (req) => {
          const name = req.path.split('/').pop();
          const np = NETWORK_POLICIES.items.find((p) => p.metadata.name === name);
          return np
            ? { body: np }
            : {
                status: 404,
                body: {
                  kind: 'Status',
                  reason: 'NotFound',
                  message: `networkpolicies.controlplane.antrea.io "${name}" not found`,
                  details: { name },
                },
              };
        });
      fakes.agentFake
        .on('GET', '/agentinfo', { body: AGENT_INFO })
        .on('GET', '/podinterfaces', { body: POD_INTERFACES })
        .on('GET', '/ovsflows', {
          body: [{ flow: 'table=PipelineRootClassifier, priority=0 actions=drop' }],
        });
      opts.setup?.(fakes);
      return fakes;
    },
  });
  const code = await runAntctl(argv, deps);
  return {
    code,
    out: deps.stdoutText(),
    err: deps.stderrText(),
    fakes: fakes as ReturnType<typeof fakeConnections>,
  };
}

describe('get networkpolicy (controller mode, through the aggregated API)', () => {
  it("prints Antrea's table, sorted by source name", async () => {
    const r = await antctl(['get', 'networkpolicy']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        'NAME                                 APPLIED-TO     RULES SOURCE                             TIER-PRIORITY PRIORITY',
        'b6d8c4f0-0000-4000-8000-000000000002 atg-db         1     AntreaClusterNetworkPolicy:acnp-db 250           5       ',
        'a1f00000-0000-4000-8000-000000000001 atg-db,atg-web 2     K8sNetworkPolicy:default/allow-web <NONE>        <NONE>  ',
        'c0000000-0000-4000-8000-000000000003 atg-web        1     AntreaNetworkPolicy:prod/annp-deny 100           1       ',
        '',
      ].join('\n'),
    );
    expect(r.fakes.kubeFake.requests.map((q) => q.path)).toEqual([`${CP}/networkpolicies`]);
  });

  it('sorts by effectivePriority: tier, then priority, K8s policies between application and baseline', async () => {
    const r = await antctl(['get', 'netpol', '--sort-by', 'effectivePriority']);
    const names = r.out
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(' ')[0]);
    expect(names).toEqual([
      'c0000000-0000-4000-8000-000000000003',
      'b6d8c4f0-0000-4000-8000-000000000002',
      'a1f00000-0000-4000-8000-000000000001',
    ]);
  });

  it('filters by -T, -n and -S on the client in controller mode', async () => {
    expect((await antctl(['get', 'netpol', '-T', 'K8sNP'])).out).toContain('allow-web');
    expect((await antctl(['get', 'netpol', '-T', 'K8sNP'])).out).not.toContain('acnp-db');
    const ns = await antctl(['get', 'netpol', '-n', 'prod', '-o', 'json']);
    expect(JSON.parse(ns.out).map((p: { sourceRef: { name: string } }) => p.sourceRef.name)).toEqual([
      'annp-deny',
    ]);
    const src = await antctl(['get', 'netpol', '-S', 'acnp-db', '-o', 'yaml']);
    expect(src.out).toContain('name: acnp-db');
    expect(src.out).not.toContain('allow-web');
  });

  it('rejects an unknown --type before sending anything', async () => {
    const r = await antctl(['get', 'netpol', '-T', 'XYZ']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("argument 'XYZ' is invalid");
    expect(r.fakes).toBeUndefined();
  });

  it('gets one policy by name and prints it as the object in json/yaml', async () => {
    const r = await antctl(['get', 'networkpolicy', 'a1f00000-0000-4000-8000-000000000001', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).sourceRef.name).toBe('allow-web');
    expect(r.fakes.kubeFake.requests[0]?.path).toBe(
      `${CP}/networkpolicies/a1f00000-0000-4000-8000-000000000001`,
    );
  });

  it('says "not found" and exits 1 for a missing name', async () => {
    const r = await antctl(['get', 'networkpolicy', 'nope']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'Error: networkpolicy "nope" not found (networkpolicies.controlplane.antrea.io "nope" not found)\n',
    );
  });

  it('points --pod in controller mode at query endpoint', async () => {
    const r = await antctl(['get', 'netpol', '-p', 'prod/db-0']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('antctl query endpoint -n prod -p db-0');
  });

  it('accepts global flags after the subcommand, as cobra does', async () => {
    const r = await antctl(['get', 'netpol', '--kubeconfig', '/tmp/kc', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toHaveLength(3);
  });
});

describe('get addressgroup / appliedtogroup', () => {
  it('prints Pod and Node IPs from base64 members, rows sorted', async () => {
    const r = await antctl(['get', 'ag']);
    expect(r.out).toBe(
      [
        'NAME     POD-IPS             NODE-IPS     ',
        'ag-empty <NONE>              <NONE>       ',
        'ag-web   10.10.0.2,10.10.1.3 192.168.77.10',
        '',
      ].join('\n'),
    );
  });
  it("transforms groups to Antrea's {name, pods, nodes} shape for json", async () => {
    const r = await antctl(['get', 'addressgroup', '-o', 'json']);
    expect(JSON.parse(r.out)[1]).toEqual({
      name: 'ag-web',
      pods: [
        { pod: { name: 'web-1', namespace: 'default' }, ip: '10.10.1.3' },
        { pod: { name: 'web-0', namespace: 'default' }, ip: '10.10.0.2' },
      ],
      nodes: [{ node: { name: 'node-a' }, ip: '192.168.77.10' }],
    });
  });
  it('prints applied-to groups as ns/pod lists', async () => {
    const r = await antctl(['get', 'atg']);
    expect(r.out).toBe(
      [
        'NAME    PODS                       ',
        'atg-db  prod/db-0                  ',
        'atg-web default/web-0,default/web-1',
        '',
      ].join('\n'),
    );
  });
});

describe('controllerinfo and version (controller mode)', () => {
  it('prints the controllerinfo table', async () => {
    const r = await antctl(['get', 'ci']);
    expect(r.out).toBe(
      [
        'POD                                NODE   STATUS  NETWORK-POLICIES ADDRESS-GROUPS APPLIED-TO-GROUPS CONNECTED-AGENTS',
        'kube-system/antrea-controller-5d9f node-a Healthy 3                2              2                 2               ',
        '',
      ].join('\n'),
    );
  });
  it('prints client and server versions as yaml by default', async () => {
    const r = await antctl(['version']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('controllerVersion: v0.1.0-antrea-ts\nantctlVersion: 0.1.0-test\n');
  });
  it('still prints the client version when the server is unreachable, and fails', async () => {
    const r = await antctl(['version'], {
      setup: (f) => {
        f.kubeFake.request = async (req: ApiRequest) => {
          void req;
          throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        };
      },
    });
    expect(r.code).toBe(1);
    expect(r.out).toBe('antctlVersion: 0.1.0-test\n');
    expect(r.err).toContain('cannot reach the Kubernetes API at https://kube.test:6443');
  });
  it('refuses agent-only commands with directions', async () => {
    const r = await antctl(['get', 'agentinfo']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('"antctl get agentinfo" is only available in agent mode');
    expect(r.err).toContain('--mode agent');
  });
});

describe('agent mode (POD_NAME=antrea-agent-*, or --mode agent)', () => {
  it('detects agent mode from POD_NAME and reads /agentinfo', async () => {
    const r = await antctl(['get', 'agentinfo'], { podName: 'antrea-agent-x7k2p' });
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        'POD                            NODE   STATUS  NODE-SUBNET  NETWORK-POLICIES ADDRESS-GROUPS APPLIED-TO-GROUPS LOCAL-PODS',
        'kube-system/antrea-agent-x7k2p node-a Healthy 10.10.0.0/24 1                1              1                 4         ',
        '',
      ].join('\n'),
    );
  });
  it('passes podinterface name and namespace as query parameters', async () => {
    const r = await antctl(['--mode', 'agent', 'get', 'pi', 'web-0', '-n', 'default']);
    expect(r.fakes.agentFake.requests[0]).toEqual({
      path: '/podinterfaces',
      query: { name: 'web-0', namespace: 'default' },
    });
    expect(r.out.split('\n')[0]).toBe(
      'NAMESPACE NAME  INTERFACE-NAME IP        MAC               PORT-UUID OF-PORT CONTAINER-ID',
    );
    // Container IDs are cut to 11 characters, as in Antrea.
    expect(r.out.split('\n')[1]).toBe(
      'default   web-0 web-0-4a1b2c   10.10.0.2 16:6e:1a:2b:3c:4d <NONE>    3       0123456789a ',
    );
  });
  it('passes ovsflows filters the way Antrea names them', async () => {
    const r = await antctl([
      '--mode',
      'agent',
      'get',
      'of',
      '-p',
      'web-0',
      '-n',
      'default',
      '-T',
      'IngressRule,EgressRule',
    ]);
    expect(r.code).toBe(0);
    expect(r.fakes.agentFake.requests[0]?.query).toMatchObject({
      pod: 'web-0',
      namespace: 'default',
      table: 'IngressRule,EgressRule',
    });
    expect(r.out).toBe('\ntable=PipelineRootClassifier, priority=0 actions=drop\n');
  });
  it('asks the agent for networkpolicies with its filters', async () => {
    const r = await antctl(['--mode', 'agent', 'get', 'netpol', '-p', 'default/web-0', '-T', 'ACNP'], {
      setup: (f) => f.agentFake.on('GET', '/networkpolicies', { body: NETWORK_POLICIES.items }),
    });
    expect(r.code).toBe(0);
    expect(r.fakes.agentFake.requests[0]?.query).toMatchObject({ pod: 'default/web-0', type: 'ACNP' });
  });
  it('falls back from /version to /agentinfo for the agent version', async () => {
    const r = await antctl(['version', '-o', 'json'], { podName: 'antrea-agent-1' });
    expect(JSON.parse(r.out)).toEqual({ agentVersion: '0.1.0-antrea-ts', antctlVersion: '0.1.0-test' });
  });
  it('sets the log level with ?level=', async () => {
    const r = await antctl(['log-level', '3'], {
      podName: 'antrea-agent-1',
      setup: (f) => f.agentFake.on('GET', '/loglevel', { body: 3 }),
    });
    expect(r.fakes.agentFake.requests[0]).toEqual({ path: '/loglevel', query: { level: '3' } });
    expect(r.out).toBe('3\n');
  });
  it('rejects a non-numeric log level', async () => {
    const r = await antctl(['log-level', 'debug'], { podName: 'antrea-agent-1' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('want a non-negative integer');
  });
});

describe('query', () => {
  it('posts a NetworkPolicyEvaluation and prints the effective rule', async () => {
    const r = await antctl(['query', 'netpoleval', '-S', 'default/web-0', '-D', 'prod/db-0'], {
      setup: (f) =>
        f.kubeFake.on('POST', `${CP}/networkpolicyevaluation`, (req) => ({
          status: 201,
          body: {
            ...(req.body as object),
            response: {
              networkPolicy: { type: 'AntreaClusterNetworkPolicy', name: 'acnp-db', uid: 'u' },
              ruleIndex: 0,
              rule: { direction: 'In', action: 'Allow' },
            },
          },
        })),
    });
    expect(r.code).toBe(0);
    expect(r.fakes.kubeFake.requests[0]?.body).toEqual({
      kind: 'NetworkPolicyEvaluation',
      apiVersion: 'controlplane.antrea.io/v1beta2',
      metadata: { creationTimestamp: null },
      request: {
        source: { pod: { namespace: 'default', name: 'web-0' } },
        destination: { pod: { namespace: 'prod', name: 'db-0' } },
      },
    });
    expect(r.out).toBe(
      [
        'NAME    NAMESPACE POLICY-TYPE                RULE-INDEX DIRECTION ACTION',
        'acnp-db <NONE>    AntreaClusterNetworkPolicy 0          In        Allow ',
        '',
      ].join('\n'),
    );
  });
  it('needs both endpoints for networkpolicyevaluation', async () => {
    const r = await antctl(['query', 'networkpolicyevaluation', '-S', 'default/web-0']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('needs both -S/--source and -D/--destination');
  });
  it('prints endpoint query sections (in the controller Pod: loopback)', async () => {
    const r = await antctl(['query', 'endpoint', '-n', 'prod', '-p', 'db-0'], {
      podName: 'antrea-controller-abc',
      setup: (f) =>
        f.controllerDirectFake.on('GET', '/endpoint', {
          body: {
            endpoints: [
              {
                namespace: 'prod',
                name: 'db-0',
                policies: [{ type: 'AntreaClusterNetworkPolicy', name: 'acnp-db', uid: 'u-acnp' }],
                ingresssrcrules: [
                  {
                    policyref: {
                      type: 'K8sNetworkPolicy',
                      namespace: 'default',
                      name: 'allow-web',
                      uid: 'u-knp',
                    },
                    direction: 'In',
                    ruleindex: 0,
                  },
                ],
              },
            ],
          },
        }),
    });
    expect(r.fakes.controllerDirectFake.requests[0]).toEqual({
      path: '/endpoint',
      query: { namespace: 'prod', pod: 'db-0' },
    });
    expect(r.out).toBe(
      [
        'Endpoint prod/db-0',
        'Applied Policies on Endpoint:',
        'Name    Namespace UID   ',
        'acnp-db <NONE>    u-acnp',
        '',
        'Egress Rules Referencing Endpoint as Destination: None',
        '',
        'Ingress Rules Referencing Endpoint as Source:',
        'Name      Namespace Index UID  ',
        'allow-web default   0     u-knp',
        '',
        '',
      ].join('\n'),
    );
  });
});

describe('featuregates', () => {
  it('prints sections per component from the controller API', async () => {
    const r = await antctl(['get', 'fg'], {
      setup: (f) =>
        f.controllerDirectFake.on('GET', '/featuregates', {
          body: [
            { component: 'controller', name: 'Traceflow', status: 'Enabled', version: 'BETA' },
            { component: 'agent', name: 'AntreaPolicy', status: 'Enabled', version: 'BETA' },
            { component: 'agent', name: 'Multicast', status: 'Disabled', version: 'ALPHA' },
          ],
        }),
    });
    expect(r.out).toBe(
      [
        'Antrea Agent Feature Gates',
        'FEATUREGATE      STATUS       VERSION',
        'AntreaPolicy     Enabled      BETA',
        'Multicast        Disabled     ALPHA',
        '',
        'Antrea Controller Feature Gates',
        'FEATUREGATE     STATUS      VERSION',
        'Traceflow       Enabled     BETA',
        '',
      ].join('\n'),
    );
  });
});

describe('usage, output formats and completion', () => {
  it('exits 2 on an unknown command or flag', async () => {
    expect((await antctl(['get', 'bogus'])).code).toBe(2);
    expect((await antctl(['get', 'ag', '--bogus'])).code).toBe(2);
    expect((await antctl(['get', 'ag', '-o', 'xml'])).err).toContain('unsupported output format "xml"');
  });
  it('parses Go-style --timeout durations', async () => {
    expect((await antctl(['-t', '1m30s', 'get', 'ag'])).code).toBe(0);
    const bad = await antctl(['-t', 'soon', 'get', 'ag']);
    expect(bad.code).toBe(2);
  });
  it('prints help on --help with exit 0', async () => {
    const r = await antctl(['get', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('networkpolicy|networkpolicies');
  });
  it('generates a bash completion that knows every command, alias and flag', async () => {
    const r = await antctl(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('complete -o default -F __antctl_complete antctl');
    expect(r.out).toMatch(/"get netpol"\) words="[^"]*--sort-by[^"]*"/);
    expect(r.out).toMatch(/"get"\) words="networkpolicy networkpolicies netpol /);
    const zsh = await antctl(['completion', 'zsh']);
    expect(zsh.out.startsWith('#compdef antctl\nautoload -U +X bashcompinit && bashcompinit\n')).toBe(true);
    expect((await antctl(['completion', 'fish'])).code).toBe(2);
  });
});

describe('cobra __complete (kubectl plugin completion)', () => {
  it('offers subcommands and flags for the last word, then the no-file directive', async () => {
    expect((await antctl(['__complete', 'get', 'add'])).out).toBe('addressgroup\naddressgroups\n:4\n');
    expect((await antctl(['__complete', 'get', 'netpol', '--so'])).out).toBe('--source\n--sort-by\n:4\n');
    expect((await antctl(['__complete', 'get', 'zz'])).out).toBe(':4\n');
  });
});

describe('get stats (stats.antrea.io/v1alpha1)', () => {
  it('lists NetworkPolicy stats of one Namespace with kubectl-like columns', async () => {
    const r = await antctl(['get', 'stats', 'netpol', '-n', 'default'], {
      setup: (f) =>
        f.kubeFake.on('GET', '/apis/stats.antrea.io/v1alpha1/namespaces/default/networkpolicystats', {
          body: {
            items: [
              {
                metadata: { name: 'allow-web', namespace: 'default' },
                trafficStats: { sessions: 2, packets: 10, bytes: 840 },
              },
              { metadata: { name: 'idle', namespace: 'default' } },
            ],
          },
        }),
    });
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        'NAMESPACE NAME      SESSIONS PACKETS BYTES',
        'default   allow-web 2        10      840  ',
        'default   idle      0        0       0    ',
        '',
      ].join('\n'),
    );
  });
  it('gets one cluster-scoped ACNP stats object and routes errors to the stats APIService', async () => {
    const r = await antctl(['get', 'stats', 'acnp', 'acnp-db', '-o', 'json']);
    expect(r.fakes.kubeFake.requests[0]?.path).toBe(
      '/apis/stats.antrea.io/v1alpha1/antreaclusternetworkpolicystats/acnp-db',
    );
    expect(r.code).toBe(1);
    expect(r.err).toContain('v1alpha1.stats.antrea.io');
  });
  it('needs -n for one namespaced policy, and knows its kinds', async () => {
    expect((await antctl(['get', 'stats', 'annp', 'x'])).err).toContain('a Namespace is needed with -n');
    expect((await antctl(['get', 'stats', 'bogus'])).code).toBe(2);
  });
});
