// The deployment artifacts: generated files match their source (drift check), and a real
// kube-apiserver accepts every object of build/yamls/antrea.yml and build/yamls/flow-aggregator.yml
// (server-side dry run validates each against its schema: Deployment, DaemonSet, RBAC, APIService,
// ConfigMap, Service, Namespace, CRDs); the confs they carry parse with the components' own loaders.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { antreaCniConflist } from '@antrea-ts/apis';
import { IPFIX_COLLECTOR_PORT, parseConfig } from '@antrea-ts/flow-aggregator';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import { FLOW_GRPC_PORT } from '@antrea-ts/ipfix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadOptions } from '../../cmd/antrea-agent/options.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const exec = promisify(execFile);

type Obj = { kind: string; metadata: { name: string; namespace?: string } } & Record<string, unknown>;
const manifestObjects = (file: string): Obj[] =>
  parseAllDocuments(readFileSync(`${ROOT}build/yamls/${file}`, 'utf8')).map((d) => d.toJSON() as Obj);
/** A file of a ConfigMap of a plain manifest. */
function confText(file: string, configMap: string, key: string): string {
  const cm = manifestObjects(file).find((o) => o.kind === 'ConfigMap' && o.metadata.name === configMap);
  const text = (cm?.['data'] as Record<string, string> | undefined)?.[key];
  expect(text, `${configMap}/${key}`).toBeDefined();
  return text!;
}

describe('deployment artifacts', () => {
  let kube: KubeCluster;

  beforeAll(async () => {
    kube = await startKube();
  });

  afterAll(async () => {
    await kube?.stop();
  });

  it('are what build/manifests/source.mjs generates', async () => {
    await expect(
      exec(process.execPath, ['build/manifests/generate.mjs', '--check'], { cwd: ROOT }),
    ).resolves.toBeDefined();
  });

  it.each([
    ['antrea', 'antrea.yml'],
    ['flow-aggregator', 'flow-aggregator.yml'],
  ])(
    'chart %s: templates render, with the default values, to the objects of the plain manifest',
    (chart, manifest) => {
      // No helm binary here: a renderer for exactly the template constructs the generator emits
      // ({{ .Values.x }}, {{ toJson .Values.x }}, a range over a map) checks where it put them.
      const values = parse(readFileSync(`${ROOT}build/charts/${chart}/values.yaml`, 'utf8')) as Record<
        string,
        unknown
      >;
      const get = (path: string) =>
        path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], values);
      const render = (text: string) =>
        text
          .replace(
            /\n[ \t]*\{\{- range \$k, \$v := \.Values\.(\S+) \}\}(\n[^\n]*)\n[ \t]*\{\{- end \}\}/g,
            (_m, path: string, body: string) =>
              Object.entries(get(path) as Record<string, unknown>)
                .map(([k, v]) => body.replace('{{ $k }}', k).replace('{{ $v }}', String(v)))
                .join(''),
          )
          .replace(/\{\{ toJson \.Values\.(\S+) \}\}/g, (_m, path: string) => JSON.stringify(get(path)))
          .replace(/\{\{ \.Values\.(\S+) \}\}/g, (_m, path: string) => String(get(path)));
      const key = (o: { kind: string; metadata: { name: string } }) => `${o.kind}/${o.metadata.name}`;
      const plain = new Map(
        parseAllDocuments(readFileSync(`${ROOT}build/yamls/${manifest}`, 'utf8'))
          .map((d) => d.toJSON() as { kind: string; metadata: { name: string } })
          .map((o) => [key(o), o]),
      );
      const dir = `${ROOT}build/charts/${chart}/templates`;
      const files = readdirSync(dir);
      // Every object of the plain manifest has its template (antrea.yml has the CRDs too).
      expect(files.length).toBeGreaterThanOrEqual(
        [...plain.values()].filter((o) => o.kind !== 'CustomResourceDefinition').length,
      );
      for (const f of files) {
        const rendered = render(readFileSync(`${dir}/${f}`, 'utf8'));
        expect(rendered, f).not.toContain('{{');
        const o = parse(rendered) as { kind: string; metadata: { name: string } };
        expect(o, f).toEqual(plain.get(key(o)));
      }
    },
  );

  it('carry the CNI conflist the lab installs on its Nodes (build/manifests/source.mjs keeps its own copy)', () => {
    const config = parseAllDocuments(readFileSync(`${ROOT}build/yamls/antrea.yml`, 'utf8'))
      .map((d) => d.toJSON() as { kind: string; metadata: { name: string }; data?: Record<string, string> })
      .find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'antrea-config');
    const conflist = config?.data?.['antrea-cni.conflist'];
    expect(conflist).toBeDefined();
    expect(JSON.parse(conflist!)).toEqual(antreaCniConflist());
  });

  it("probe the agent over HTTPS and let antctl's ServiceAccount call the agent API paths", () => {
    type Obj = { kind: string; metadata: { name: string } } & Record<string, unknown>;
    const objects = parseAllDocuments(readFileSync(`${ROOT}build/yamls/antrea.yml`, 'utf8')).map(
      (d) => d.toJSON() as Obj,
    );
    const find = <T = Obj>(kind: string, name: string) =>
      objects.find((o) => o.kind === kind && o.metadata.name === name) as unknown as T;
    const agent = find<{
      spec: { template: { spec: { containers: Record<string, { httpGet?: { scheme?: string } }>[] } } };
    }>('DaemonSet', 'antrea-agent').spec.template.spec.containers[0]!;
    expect(agent['readinessProbe']?.httpGet?.scheme).toBe('HTTPS');
    expect(agent['livenessProbe']?.httpGet?.scheme).toBe('HTTPS');
    const { rules } = find<{ rules: { nonResourceURLs?: string[] }[] }>('ClusterRole', 'antctl');
    const urls = rules.flatMap((r) => r.nonResourceURLs ?? []);
    expect(urls).toEqual(
      expect.arrayContaining(['/podinterfaces', '/ovsflows', '/agentinfo', '/networkpolicies']),
    );
    expect(find('ClusterRoleBinding', 'antctl')).toMatchObject({
      roleRef: { name: 'antctl' },
      subjects: [{ kind: 'ServiceAccount', name: 'antctl', namespace: 'kube-system' }],
    });
    // The agent checks callers through kube-apiserver.
    expect(find('ClusterRoleBinding', 'antrea-agent-auth-delegator')).toMatchObject({
      roleRef: { name: 'system:auth-delegator' },
    });
  });

  it('apply to a real kube-apiserver', async () => {
    const manifest = `${ROOT}build/yamls/antrea.yml`;
    // CRDs for real (the dry run of custom resources needs them), then everything server-side.
    await kube.kubectl(['apply', '-f', `${ROOT}build/crds`]);
    const out = await kube.kubectl(['apply', '--dry-run=server', '-f', manifest]);
    for (const want of [
      'clusterrole.rbac.authorization.k8s.io/antrea-agent',
      'configmap/antrea-config',
      'service/antrea',
      'apiservice.apiregistration.k8s.io/v1beta2.controlplane.antrea.io',
      'deployment.apps/antrea-controller',
      'daemonset.apps/antrea-agent',
    ]) {
      expect(out).toContain(want);
    }
  });
  it("carry the Flow Aggregator's conf with the defaults of its own loader, and a Service on the port the agents send to", () => {
    const conf = confText('flow-aggregator.yml', 'flow-aggregator-configmap', 'flow-aggregator.conf');
    // parseConfig('') is every default of packages/flow-aggregator's loader.
    expect(parseConfig(conf)).toEqual(parseConfig(''));
    const objects = manifestObjects('flow-aggregator.yml');
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'flow-aggregator');
    expect(service?.metadata.namespace).toBe('flow-aggregator');
    const { ports } = service!['spec'] as { ports: { port: number; protocol: string }[] };
    expect(ports.map((p) => `${p.port}/${p.protocol}`).sort()).toEqual([
      `${FLOW_GRPC_PORT}/TCP`,
      `${IPFIX_COLLECTOR_PORT}/TCP`,
      `${IPFIX_COLLECTOR_PORT}/UDP`,
    ]);
    // The agents' gRPC transport: they may read the CA ConfigMap and client Secret, nothing more.
    expect(
      objects.find((o) => o.kind === 'Role' && o.metadata.name === 'flow-aggregator-exporter-role'),
    ).toMatchObject({
      rules: [
        { resources: ['configmaps'], verbs: ['get'], resourceNames: ['flow-aggregator-ca'] },
        { resources: ['secrets'], verbs: ['get'], resourceNames: ['flow-aggregator-client-tls'] },
      ],
    });
    expect(
      objects.find(
        (o) => o.kind === 'RoleBinding' && o.metadata.name === 'flow-aggregator-exporter-role-binding',
      ),
    ).toMatchObject({
      subjects: [{ kind: 'ServiceAccount', name: 'antrea-agent', namespace: 'kube-system' }],
    });
    // The Pod informer reads Pods cluster-wide: the ClusterRole grants that, bound to the Pod's account.
    expect(
      objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'flow-aggregator'),
    ).toMatchObject({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] });
    expect(
      objects.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'flow-aggregator'),
    ).toMatchObject({
      subjects: [{ kind: 'ServiceAccount', name: 'flow-aggregator', namespace: 'flow-aggregator' }],
    });
  });

  it("carry an agent flowExporter section that antrea-agent's loadOptions reads: off, aimed at the aggregator Service", () => {
    const conf = confText('antrea.yml', 'antrea-config', 'antrea-agent.conf');
    const dir = mkdtempSync(join(tmpdir(), 'ats-manifests-'));
    const load = (text: string) => {
      writeFileSync(join(dir, 'antrea-agent.conf'), text);
      return loadOptions(['node', 'antrea-agent', '--config', join(dir, 'antrea-agent.conf')], {
        NODE_NAME: 'n1',
      }).agent.flowExporter;
    };
    try {
      const faConf = parseConfig(
        confText('flow-aggregator.yml', 'flow-aggregator-configmap', 'flow-aggregator.conf'),
      );
      // Antrea's default: gRPC to the aggregator's port 14739, which always serves it.
      expect(faConf.aggregatorTransportProtocol).not.toBe('grpc');
      const collector = { host: 'flow-aggregator/flow-aggregator', port: FLOW_GRPC_PORT, transport: 'grpc' };
      expect(load(conf)).toEqual({
        featureGate: false,
        enable: false,
        collector,
        pollIntervalMs: 5000,
        activeTimeoutMs: 5000,
        idleTimeoutMs: 15000,
        protocols: [],
      });
      // Turned on (gate and enable), the same section is valid as it stands: the agent would export.
      const on = conf
        .replace(/^(\s+)FlowExporter: false$/m, '$1FlowExporter: true')
        .replace(/^(flowExporter:\n\s+)enable: false$/m, '$1enable: true');
      expect(on).not.toBe(conf);
      expect(load(on)).toMatchObject({ featureGate: true, enable: true, collector });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('start every container with a command the image has (build/images/scripts)', () => {
    const scripts = new Set(readdirSync(`${ROOT}build/images/scripts`));
    type PodSpec = { containers: { command?: string[] }[]; initContainers?: { command?: string[] }[] };
    const commands = ['antrea.yml', 'flow-aggregator.yml'].flatMap((f) =>
      manifestObjects(f)
        .filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet')
        .flatMap((o) => {
          const pod = (o['spec'] as { template: { spec: PodSpec } }).template.spec;
          return [...(pod.initContainers ?? []), ...pod.containers].map((c) => c.command?.[0]);
        }),
    );
    expect(commands).toContain('flow-aggregator');
    for (const c of commands) expect(scripts, String(c)).toContain(c);
    expect(readFileSync(`${ROOT}build/images/Dockerfile`, 'utf8')).toMatch(
      /tsc -b [^\n]*cmd\/flow-aggregator/,
    );
  });

  it('apply the Flow Aggregator to a real kube-apiserver', async () => {
    // Its namespaced objects need the Namespace for real; then every object server-side.
    await kube.kubectl(['create', 'namespace', 'flow-aggregator']);
    const out = await kube.kubectl([
      'apply',
      '--dry-run=server',
      '-f',
      `${ROOT}build/yamls/flow-aggregator.yml`,
    ]);
    for (const want of [
      'namespace/flow-aggregator',
      'serviceaccount/flow-aggregator',
      'clusterrole.rbac.authorization.k8s.io/flow-aggregator',
      'clusterrolebinding.rbac.authorization.k8s.io/flow-aggregator',
      'role.rbac.authorization.k8s.io/flow-aggregator-role',
      'role.rbac.authorization.k8s.io/flow-aggregator-exporter-role',
      'rolebinding.rbac.authorization.k8s.io/flow-aggregator-role-binding',
      'rolebinding.rbac.authorization.k8s.io/flow-aggregator-exporter-role-binding',
      'configmap/flow-aggregator-configmap',
      'service/flow-aggregator',
      'deployment.apps/flow-aggregator',
    ]) {
      expect(out).toContain(want);
    }
  });
  it("start the Flow Aggregator with its Deployment's command line and conf: ready on the probe port, IPFIX on 4739", async () => {
    type Container = {
      command: string[];
      args: string[];
      ports: { name: string; containerPort: number; protocol: string }[];
      readinessProbe: { httpGet: { path: string; port: string } };
      volumeMounts: { mountPath: string }[];
    };
    const deployment = manifestObjects('flow-aggregator.yml').find((o) => o.kind === 'Deployment');
    const c = (deployment!['spec'] as { template: { spec: { containers: Container[] } } }).template.spec
      .containers[0]!;
    // The image's entry script names the program; here it is the same file under the repository.
    const script = readFileSync(`${ROOT}build/images/scripts/${c.command[0]}`, 'utf8');
    const program = /exec node \/app\/(\S+) "\$@"/.exec(script)?.[1];
    expect(program).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'ats-manifests-'));
    writeFileSync(
      join(dir, 'flow-aggregator.conf'),
      confText('flow-aggregator.yml', 'flow-aggregator-configmap', 'flow-aggregator.conf'),
    );
    const args = c.args.map((a) => a.replace(c.volumeMounts[0]!.mountPath, dir));
    // Its own network namespace (gone with the process): the fixed ports cannot meet anyone else's.
    const child = spawn(
      'unshare',
      [
        '-n',
        '--',
        'sh',
        '-c',
        'ip link set lo up && exec "$0" "$@"',
        process.execPath,
        join(ROOT, program!),
        ...args,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const inNs = (...cmd: string[]) => exec('nsenter', ['-t', String(child.pid), '-n', ...cmd]);
    try {
      const probe = c.readinessProbe.httpGet;
      const port = c.ports.find((p) => p.name === probe.port)!.containerPort;
      let ready = false;
      for (let i = 0; i < 120 && !ready && child.exitCode === null; i++) {
        ready = await inNs('curl', '-sf', `http://127.0.0.1:${port}${probe.path}`).then(
          () => true,
          () => false,
        );
        if (!ready) await sleep(250);
      }
      expect(ready, stderr).toBe(true);
      const { stdout } = await inNs('ss', '-Hltn', `sport = :${IPFIX_COLLECTOR_PORT}`);
      expect(stdout).toContain('LISTEN');
    } finally {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
