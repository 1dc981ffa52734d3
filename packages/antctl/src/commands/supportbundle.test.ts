import { describe, expect, it } from 'vitest';
import type { ModeDecision } from '../mode.js';
import { runAntctl } from '../program.js';
import { captureDeps, fakeConnections } from '../testing/fakes.js';
import { CLUSTERINFO_SOURCES, globMatch } from './supportbundle.js';

describe('supportbundle', () => {
  it('matches Node names with shell wildcards only', () => {
    expect(globMatch('*worker*', 'k8s-worker-1')).toBe(true);
    expect(globMatch('node-?', 'node-a')).toBe(true);
    expect(globMatch('node-?', 'node-ab')).toBe(false);
    expect(globMatch('a.b', 'axb')).toBe(false);
  });

  it('never lists Secrets in clusterinfo', () => {
    expect(CLUSTERINFO_SOURCES.some((s) => /secret/i.test(s.path))).toBe(false);
  });

  it('in the agent Pod asks the local agent for its bundle, waits until Collected and downloads it', async () => {
    let fakes: ReturnType<typeof fakeConnections> | undefined;
    let gets = 0;
    const deps = captureDeps({
      env: { POD_NAME: 'antrea-agent-x1' },
      connect: (mode: ModeDecision) => {
        fakes = fakeConnections(mode);
        fakes.agentFake
          .on('POST', '/apis/system.antrea.io/v1beta1/supportbundles', {
            status: 201,
            body: { status: 'Collecting' },
          })
          .on('GET', '/apis/system.antrea.io/v1beta1/supportbundles/agent', () => {
            gets++;
            return {
              body: {
                status: gets < 3 ? 'Collecting' : 'Collected',
                metadata: { deletionTimestamp: '2026-11-21T10:30:00Z' },
              },
            };
          })
          .on('GET', '/apis/system.antrea.io/v1beta1/supportbundles/agent/download', {
            body: Buffer.from('tar.gz bytes'),
          });
        return fakes;
      },
    });
    expect(await runAntctl(['supportbundle', '-d', 'out'], deps)).toBe(0);
    expect(gets).toBe(3);
    expect(fakes?.agentFake.requests[0]).toMatchObject({
      method: 'POST',
      body: { metadata: { name: 'agent' } },
    });
    expect(deps.stdoutText()).toBe('Collected out/agent.tar.gz\nExpire time: 2026-11-21T10:30:00Z\n');
    expect(deps.files.get('out/agent.tar.gz')?.toString()).toBe('tar.gz bytes');
  });
});

describe('--verbose', () => {
  it('traces each request and its status on stderr', async () => {
    const deps = captureDeps({
      connect: (mode: ModeDecision) => {
        const f = fakeConnections(mode);
        f.kubeFake.on('GET', '/apis/controlplane.antrea.io/v1beta2/addressgroups', { body: { items: [] } });
        return f;
      },
    });
    expect(await runAntctl(['-v', 'get', 'ag'], deps)).toBe(0);
    expect(deps.stderrText()).toBe(
      'GET https://kube.test:6443/apis/controlplane.antrea.io/v1beta2/addressgroups -> 200\n',
    );
  });
});
