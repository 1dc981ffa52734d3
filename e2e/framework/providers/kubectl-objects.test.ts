import { describe, expect, it } from 'vitest';
import { KubectlObjects, resourceArg } from './kubectl-objects.js';

describe('KubectlObjects', () => {
  it('names resources Kind.version.group, core kinds bare', () => {
    expect(resourceArg('v1', 'Namespace')).toBe('Namespace');
    expect(resourceArg('crd.antrea.io/v1beta1', 'NetworkPolicy')).toBe('NetworkPolicy.v1beta1.crd.antrea.io');
    expect(resourceArg('networking.k8s.io/v1', 'NetworkPolicy')).toBe('NetworkPolicy.v1.networking.k8s.io');
  });

  it('applies server-side, patches with JSON patch, replaces labels with one add', async () => {
    const calls: { args: readonly string[]; input?: string }[] = [];
    const o = new KubectlObjects(async (args, opt) => {
      calls.push({ args, ...(opt?.input !== undefined ? { input: opt.input } : {}) });
      return '';
    });
    await o.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } });
    await o.setLabels({ kind: 'Pod', namespace: 'x', name: 'a' }, { k: 'v' });
    expect(calls).toEqual([
      {
        args: ['apply', '--server-side', '--force-conflicts', '--field-manager=antrea-ts-e2e', '-f', '-'],
        input: '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"x"}}',
      },
      {
        args: [
          'patch',
          'Pod',
          'a',
          '-n',
          'x',
          '--type=json',
          '-p',
          '[{"op":"add","path":"/metadata/labels","value":{"k":"v"}}]',
        ],
      },
    ]);
  });

  const terminating = (discoveryFailed: boolean) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'x' },
      status: {
        phase: 'Terminating',
        conditions: [
          {
            type: 'NamespaceDeletionDiscoveryFailure',
            status: discoveryFailed ? 'True' : 'False',
            message: 'stale GroupVersion discovery: controlplane.antrea.io/v1beta2',
          },
          { type: 'NamespaceContentRemaining', status: 'False', message: 'All content successfully removed' },
        ],
      },
    });

  it('waits for a Namespace to go, and finalizes it only when content is gone and discovery failed', async () => {
    const calls: string[] = [];
    let gets = 0;
    const o = new KubectlObjects(
      async (args) => {
        calls.push(args.slice(0, 3).join(' '));
        if (args[0] === 'get') {
          gets++;
          if (gets === 1) return terminating(false); // still deleting content normally
          if (calls.some((c) => c.startsWith('replace'))) return '';
          return terminating(true);
        }
        return '';
      },
      { sleep: async () => {} },
    );
    await o.deleteNamespace('x');
    expect(calls).toEqual([
      'delete namespace x',
      'get Namespace x',
      'get Namespace x',
      'replace --raw /api/v1/namespaces/x/finalize',
      'get Namespace x',
    ]);
    expect(o.forcedFinalizations).toEqual(['x']);
  });

  it('gives up on a Namespace that stays terminating, saying why', async () => {
    const o = new KubectlObjects(async (args) => (args[0] === 'get' ? terminating(false) : ''), {
      deleteTimeoutMs: 0,
      sleep: async () => {},
    });
    await expect(o.deleteNamespace('x')).rejects.toThrow(
      expect.objectContaining({
        code: 'E2E_PROVIDER',
        message: expect.stringContaining('still terminating'),
      }),
    );
    expect(o.forcedFinalizations).toEqual([]);
  });

  it('only requests a Namespace deletion with wait: false', async () => {
    const calls: string[] = [];
    const o = new KubectlObjects(async (args) => {
      calls.push(args.join(' '));
      return terminating(false);
    });
    await o.deleteNamespace('x', { wait: false });
    expect(calls).toEqual(['delete namespace x --ignore-not-found --wait=false']);
  });
});
