import { describe, expect, it } from 'vitest';
import {
  apiServiceObject,
  applyObjects,
  getRawWhenServed,
  installCrds,
  serviceAccountWithClusterRole,
} from './kube-objects.js';

/** Records kubectl calls; answers with `reply` (which may throw). */
function recordingKubectl(reply: (args: readonly string[]) => string = () => 'ok') {
  const calls: { args: readonly string[]; input?: string }[] = [];
  return {
    calls,
    kubectl: async (args: readonly string[], options?: { input?: string }) => {
      calls.push({ args, ...(options?.input === undefined ? {} : { input: options.input }) });
      return reply(args);
    },
  };
}

describe('applyObjects', () => {
  it('applies every object in one List read from stdin, with extra kubectl flags', async () => {
    const kube = recordingKubectl();
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
    await applyObjects(kube, [node], ['--dry-run=server']);
    expect(kube.calls).toHaveLength(1);
    expect(kube.calls[0]?.args).toEqual(['apply', '--dry-run=server', '-f', '-']);
    expect(JSON.parse(kube.calls[0]?.input ?? '')).toEqual({ apiVersion: 'v1', kind: 'List', items: [node] });
  });
});

describe('installCrds', () => {
  it('applies each path, then waits for every CRD to be Established', async () => {
    const kube = recordingKubectl();
    await installCrds(kube, ['/a/crd-x.yaml', '/b/']);
    expect(kube.calls.map((c) => c.args)).toEqual([
      ['apply', '-f', '/a/crd-x.yaml', '-f', '/b/'],
      ['wait', '--for', 'condition=established', '--timeout=60s', 'crd', '--all'],
    ]);
  });

  it('passes extra flags to kubectl apply (server-side apply for the lab)', async () => {
    const kube = recordingKubectl();
    await installCrds(kube, ['/crds'], ['--server-side']);
    expect(kube.calls[0]?.args).toEqual(['apply', '--server-side', '-f', '/crds']);
    expect(kube.calls[1]?.args[0]).toBe('wait');
  });
});

describe('apiServiceObject', () => {
  it('names the APIService version.group and carries the CA bundle base64-encoded', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n';
    const svc = apiServiceObject({
      group: 'probe.antrea-ts.io',
      version: 'v1',
      service: { name: 'probe', namespace: 'kube-system' },
      caBundlePem: pem,
    }) as { metadata: { name: string }; spec: Record<string, unknown> };
    expect(svc.metadata.name).toBe('v1.probe.antrea-ts.io');
    expect(svc.spec['service']).toEqual({ name: 'probe', namespace: 'kube-system', port: 443 });
    expect(Buffer.from(String(svc.spec['caBundle']), 'base64').toString()).toBe(pem);
  });
});

describe('serviceAccountWithClusterRole', () => {
  it('binds the ServiceAccount to a ClusterRole of the rules', () => {
    const rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
    const [sa, role, binding] = serviceAccountWithClusterRole({
      name: 'agent',
      namespace: 'kube-system',
      clusterRole: 'agent-role',
      rules,
    });
    expect(sa).toMatchObject({
      kind: 'ServiceAccount',
      metadata: { name: 'agent', namespace: 'kube-system' },
    });
    expect(role).toMatchObject({ kind: 'ClusterRole', metadata: { name: 'agent-role' }, rules });
    expect(binding).toMatchObject({
      kind: 'ClusterRoleBinding',
      roleRef: { kind: 'ClusterRole', name: 'agent-role' },
      subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace: 'kube-system' }],
    });
  });
});

describe('getRawWhenServed', () => {
  it('retries until the aggregated path answers', async () => {
    let failures = 2;
    const kube = recordingKubectl(() => {
      if (failures-- > 0) throw new Error('service unavailable');
      return '{"kind":"ThingList"}';
    });
    expect(await getRawWhenServed(kube, '/apis/probe/v1/things')).toBe('{"kind":"ThingList"}');
    expect(kube.calls).toHaveLength(3);
    expect(kube.calls[0]?.args).toEqual(['get', '--raw', '/apis/probe/v1/things']);
  });

  it('gives up with HARNESS_START_TIMEOUT when it never answers', async () => {
    const kube = recordingKubectl(() => {
      throw new Error('service unavailable');
    });
    await expect(getRawWhenServed(kube, '/apis/x', 100)).rejects.toMatchObject({
      code: 'HARNESS_START_TIMEOUT',
    });
  });
});
