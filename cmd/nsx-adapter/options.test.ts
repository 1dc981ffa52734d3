import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterConfigError } from '@antrea-ts/nsx-adapter';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOptions } from './options.js';

const dir = mkdtempSync(join(tmpdir(), 'nsx-adapter-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const load = (...argv: string[]) => loadOptions(['node', 'nsx-adapter', ...argv]);

describe('nsx-adapter options', () => {
  it('reads clusterName and the first NSX Manager from bootstrap.conf (https:// added), flags win', () => {
    const boot = join(dir, 'bootstrap.conf');
    writeFileSync(boot, 'clusterName: prod-east\nNSXManagers: [10.0.0.5, 10.0.0.6]\n');
    const fromFile = load(`--bootstrap-config=${boot}`);
    expect(fromFile).toMatchObject({
      nsxUrl: 'https://10.0.0.5',
      clusterName: 'prod-east',
      policySource: 'api',
      policyPollSeconds: 30,
      nsxTimeoutSeconds: 120,
      inventoryBatchSize: 50,
      healthHost: '127.0.0.1',
      healthPort: 16664,
      bundleFileServer: undefined,
    });
    expect(Object.isFrozen(fromFile)).toBe(true);
    expect(
      load(`--bootstrap-config=${boot}`, '--nsx-url=http://127.0.0.1:9', '--cluster-name=c2'),
    ).toMatchObject({
      nsxUrl: 'http://127.0.0.1:9',
      clusterName: 'c2',
    });
  });

  it('builds the support bundle file server from its URL, auth type and Secret', () => {
    expect(
      load(
        '--nsx-url=https://nsx',
        '--cluster-name=c',
        '--bundle-file-server=sftp://files/bundles',
        '--bundle-auth-type=APIKey',
        '--bundle-auth-secret=kube-system/bundle-creds',
      ).bundleFileServer,
    ).toEqual({
      url: 'sftp://files/bundles',
      authType: 'APIKey',
      authSecret: { namespace: 'kube-system', name: 'bundle-creds' },
    });
  });

  it.each([
    [[], '--nsx-url (or NSXManagers in --bootstrap-config) is required'],
    [['--nsx-url=https://nsx'], '--cluster-name (or clusterName in --bootstrap-config) is required'],
    [['--nsx-url=https://nsx', '--cluster-name=c', '--cert=c.pem'], '--cert and --key go together'],
    [['--nsx-url=https://nsx', '--cluster-name=c', '--register'], '--register needs --cert'],
    [
      ['--nsx-url=https://nsx', '--cluster-name=c', '--nsx-user=admin'],
      '--nsx-user and --nsx-password go together',
    ],
    [
      [
        '--nsx-url=https://nsx',
        '--cluster-name=c',
        '--bundle-file-server=sftp://f',
        '--bundle-auth-secret=only-name',
      ],
      '--bundle-file-server needs --bundle-auth-secret <namespace>/<name>',
    ],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => load(...argv)).toThrow(new AdapterConfigError(message));
  });
});
