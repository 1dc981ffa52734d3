import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { manifestObjects, rbacObjects, webhookObjects } from './manifests.js';

const MANIFEST = fileURLToPath(new URL('../../../build/yamls/antrea.yml', import.meta.url));
const names = (objects: ReadonlyArray<Record<string, unknown>>) =>
  objects.map((o) => `${o['kind']}/${(o['metadata'] as { name: string }).name}`);

describe('deployment manifest objects', () => {
  const objects = manifestObjects(MANIFEST);

  it('picks the service accounts and RBAC, and nothing else, from one parse', () => {
    const rbac = names(rbacObjects(objects));
    expect(rbac).toEqual(
      expect.arrayContaining([
        'ServiceAccount/antrea-agent',
        'ServiceAccount/antrea-controller',
        'ClusterRole/antrea-agent',
        'ClusterRole/antrea-controller',
        'ClusterRoleBinding/antrea-agent',
      ]),
    );
    expect(
      rbac.every((n) => /^(ServiceAccount|ClusterRole|ClusterRoleBinding|Role|RoleBinding)\//.test(n)),
    ).toBe(true);
  });

  it('picks the admission webhook configurations', () => {
    expect(names(webhookObjects(objects)).sort()).toEqual([
      'MutatingWebhookConfiguration/crdmutator.antrea.io',
      'ValidatingWebhookConfiguration/crdvalidator.antrea.io',
    ]);
  });
});
