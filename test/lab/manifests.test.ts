// The deployment artifacts: generated files match their source (drift check), and a real
// kube-apiserver accepts every object of build/yamls/antrea.yml (server-side dry run validates
// each against its schema: Deployment, DaemonSet, RBAC, APIService, ConfigMap, Service, CRDs).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { antreaCniConflist } from '@antrea-ts/apis';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const exec = promisify(execFile);

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

  it('chart templates render, with the default values, to the objects of the plain manifest', () => {
    // No helm binary here: a renderer for exactly the template constructs the generator emits
    // ({{ .Values.x }}, {{ toJson .Values.x }}, a range over a map) checks where it put them.
    const values = parse(readFileSync(`${ROOT}build/charts/antrea/values.yaml`, 'utf8')) as Record<
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
      parseAllDocuments(readFileSync(`${ROOT}build/yamls/antrea.yml`, 'utf8'))
        .map((d) => d.toJSON() as { kind: string; metadata: { name: string } })
        .map((o) => [key(o), o]),
    );
    const dir = `${ROOT}build/charts/antrea/templates`;
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThan(10);
    for (const f of files) {
      const rendered = render(readFileSync(`${dir}/${f}`, 'utf8'));
      expect(rendered, f).not.toContain('{{');
      const o = parse(rendered) as { kind: string; metadata: { name: string } };
      expect(o, f).toEqual(plain.get(key(o)));
    }
  });

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
});
