import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { kubeconfigYaml } from './kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'ats-kubeconfig-test-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const caFile = file('ca.crt', 'CA PEM');
const client = { cert: file('admin.crt', 'CERT PEM'), key: file('admin.key', 'KEY PEM') };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(yaml: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  return kc;
}

describe('kubeconfigYaml', () => {
  it('embeds the CA and client certificate under the <user>@<cluster> context', () => {
    const kc = load(
      kubeconfigYaml({ server: 'https://10.0.0.1:6443', caFile, cluster: 'c1', user: 'admin', client }),
    );
    expect(kc.getCurrentContext()).toBe('admin@c1');
    expect(kc.getCurrentCluster()).toMatchObject({
      name: 'c1',
      server: 'https://10.0.0.1:6443',
      caData: btoa('CA PEM'),
    });
    expect(kc.getCurrentUser()).toMatchObject({
      name: 'admin',
      certData: btoa('CERT PEM'),
      keyData: btoa('KEY PEM'),
    });
    expect(kc.getCurrentUser()?.token).toBeUndefined();
  });

  it('gives a bearer token instead when there is no client certificate', () => {
    const kc = load(
      kubeconfigYaml({ server: 'https://h:1', caFile, cluster: 'lab', user: 'agent', token: 't0k' }),
    );
    expect(kc.getCurrentContext()).toBe('agent@lab');
    expect(kc.getCurrentUser()).toMatchObject({ name: 'agent', token: 't0k' });
    expect(kc.getCurrentUser()?.certData).toBeUndefined();
  });
});
