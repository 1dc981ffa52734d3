// hack/kind-up.sh with docker, kind, kubectl, ethtool, lsmod and modprobe replaced by recording
// fakes on PATH: we cannot run kind here, but the order of what the script does, the cluster
// config it feeds kind and the Nodes' links it prepares are checked. The manifest drift check it
// starts with is the real one.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@antrea-ts/harness';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = makeTempDir('kind-up');
afterAll(() => dir.remove());

const LOG = join(dir.path, 'calls.log');
// Each fake logs "tool args..." (and kind's stdin); `kind get clusters` answers $FAKE_CLUSTERS,
// `kind get nodes` two Node names, `docker exec` the iflink 1 (the host's lo, which always exists).
const FAKES: Record<string, string> = {
  kind: `case "$1 $2" in
  "get clusters") printf '%s' "$FAKE_CLUSTERS" ;;
  "get nodes") printf 'antrea-ts-control-plane\\nantrea-ts-worker\\n' ;;
  "create cluster") cat > "${LOG}.kind-config" ;;
esac`,
  docker: `[ "$1" = exec ] && echo 1`,
  kubectl: '',
  ethtool: '',
  lsmod: '',
  modprobe: '',
};
for (const [tool, body] of Object.entries(FAKES)) {
  const f = join(dir.path, tool);
  writeFileSync(f, `#!/bin/sh\necho "${tool} $*" >> "${LOG}"\n${body}\nexit 0\n`);
  chmodSync(f, 0o755);
}

function kindUp(args: string[], env: Record<string, string> = {}) {
  rmSync(LOG, { force: true });
  const r = spawnSync('bash', [join(ROOT, 'hack/kind-up.sh'), ...args], {
    env: { ...process.env, PATH: `${dir.path}:${process.env.PATH}`, FAKE_CLUSTERS: '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  let calls: string[] = [];
  try {
    calls = readFileSync(LOG, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.trimEnd());
  } catch {}
  return { status: r.status, stderr: r.stderr, calls };
}

describe('hack/kind-up.sh with fake tools', () => {
  it('builds, creates a cluster without a CNI, fixes the Nodes links, loads, applies and waits', () => {
    const r = kindUp([]);
    expect(r.status, r.stderr).toBe(0);
    const ctx = '--context kind-antrea-ts';
    expect(r.calls).toEqual([
      'docker build -t antrea-ts/antrea:latest -f build/images/Dockerfile .',
      'kind get clusters',
      'kind create cluster --name antrea-ts --config -',
      'lsmod',
      'modprobe openvswitch',
      'kind get nodes --name antrea-ts',
      'docker exec antrea-ts-control-plane cat /sys/class/net/eth0/iflink',
      'ethtool -K lo tx off',
      'docker exec antrea-ts-worker cat /sys/class/net/eth0/iflink',
      'ethtool -K lo tx off',
      'kind load docker-image antrea-ts/antrea:latest --name antrea-ts',
      `kubectl ${ctx} apply -f build/yamls/antrea.yml`,
      `kubectl ${ctx} -n kube-system rollout status deployment/antrea-controller --timeout=5m`,
      `kubectl ${ctx} -n kube-system rollout status daemonset/antrea-agent --timeout=5m`,
      `kubectl ${ctx} wait --for=condition=Ready nodes --all --timeout=5m`,
      `kubectl ${ctx} wait --for=condition=Available apiservice/v1beta2.controlplane.antrea.io --timeout=5m`,
      `kubectl ${ctx} -n kube-system rollout status deployment/coredns --timeout=5m`,
      `kubectl ${ctx} get nodes -o wide`,
    ]);
    const config = readFileSync(`${LOG}.kind-config`, 'utf8');
    expect(config).toContain('disableDefaultCNI: true');
    expect(config.match(/- role: worker/g)).toHaveLength(2);
    expect(r.stderr).toContain('npm run e2e:suites -- -p kind --kube-context kind-antrea-ts');
  });

  it('reuses an existing cluster and a built image; down deletes; a bad command exits 2', () => {
    const r = kindUp(['up'], {
      FAKE_CLUSTERS: 'other\nantrea-ts\n',
      SKIP_BUILD: '1',
      KIND_CLUSTER_NAME: 'antrea-ts',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.calls.some((c) => c.startsWith('docker build') || c.startsWith('kind create'))).toBe(false);
    expect(r.stderr).toContain('reusing kind cluster antrea-ts');
    expect(kindUp(['down']).calls).toEqual(['kind delete cluster --name antrea-ts']);
    expect(kindUp(['sideways']).status).toBe(2);
  });

  it('stops before anything when a tool is missing', () => {
    const r = spawnSync('bash', [join(ROOT, 'hack/kind-up.sh')], {
      env: { ...process.env, PATH: '/nonexistent:/usr/bin:/bin' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/kind-up: (docker|kind|kubectl|ethtool) is required/);
  });

  it('calls none of the tools it has when one is missing', () => {
    // Every fake but kind: the check must come before docker build or anything else runs.
    const partial = join(dir.path, 'no-kind');
    mkdirSync(partial, { recursive: true });
    for (const tool of Object.keys(FAKES).filter((t) => t !== 'kind')) {
      symlinkSync(join(dir.path, tool), join(partial, tool));
    }
    const r = kindUp([], { PATH: `${partial}:/usr/bin:/bin` });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('kind-up: kind is required');
    expect(r.calls).toEqual([]);
  });
});
