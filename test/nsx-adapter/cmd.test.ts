import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type KubeCluster, startKube } from '@antrea-ts/harness';
import { generateClientCertificate } from '@antrea-ts/nsx-sim';
import { LoopbackSim } from '@antrea-ts/nsx-sim/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CCP, CLUSTER, CLUSTER_PATH, eventually, G, getJson, installCrds, SP } from './support.js';

// The nsx-adapter process (cmd/nsx-adapter) end to end: bootstrap.conf, self-registration with the
// principal identity certificate, inventory, a policy realized as an ACNP, clean exit on SIGTERM.

const root = fileURLToPath(new URL('../../', import.meta.url));
let kube: KubeCluster;
let sim: LoopbackSim;
let dir: string;
let child: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  await promisify(execFile)('npx', ['tsc', '-b', 'cmd/nsx-adapter'], { cwd: root }).catch(() => undefined);
  kube = await startKube();
  await installCrds(kube);
  dir = await mkdtemp(join(tmpdir(), 'nsx-adapter-cmd-'));
  sim = new LoopbackSim(join(dir, 'sim-state.json'));
  await sim.start();
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await sim?.stop();
  await kube?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('cmd/nsx-adapter', () => {
  it('registers, reports inventory, realizes policies and stops on SIGTERM', async () => {
    const { cert, key } = await generateClientCertificate(dir, CLUSTER);
    await writeFile(join(dir, 'tls.crt'), cert);
    await writeFile(join(dir, 'tls.key'), key);
    await writeFile(
      join(dir, 'bootstrap.conf'),
      `bootstrapFrom: Inline\nclusterName: ${CLUSTER}\nNSXManagers: ["${sim.url}"]\n`,
    );
    child = spawn(
      process.execPath,
      [
        join(root, 'dist/cmd/nsx-adapter/main.js'),
        '--bootstrap-config',
        join(dir, 'bootstrap.conf'),
        '--cert',
        join(dir, 'tls.crt'),
        '--key',
        join(dir, 'tls.key'),
        '--register',
        '--kubeconfig',
        kube.kubeconfigPath,
        '--policy-poll',
        '1',
        '--inventory-batch-period',
        '1',
        '--health-port',
        '0',
        '--log-level',
        'info',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (d: Buffer) => (output += d));
    child.stderr?.on('data', (d: Buffer) => (output += d));

    const ccp = await eventually(async () => {
      const r = await sim.call('GET', `${CCP}/${CLUSTER}`);
      return r.status === 200 ? (r.body as { node_id: string }) : undefined;
    }, `registration; output:\n${output}`);
    await eventually(
      async () => (await sim.call('GET', `/api/v1/fabric/container-clusters/${ccp.node_id}`)).status === 200,
      'inventory',
    );
    await sim.must('PATCH', `${G}/cmd-web`, {
      group_type: ['ANTREA'],
      expression: [
        {
          resource_type: 'Condition',
          member_type: 'Pod',
          key: 'Tag',
          operator: 'EQUALS',
          value: 'dis:k8s:app|web',
        },
      ],
    });
    await sim.must('PATCH', `${SP}/cmd-policy`, {
      category: 'Emergency',
      rules: [
        {
          id: 'r',
          action: 'DROP',
          direction: 'IN',
          source_groups: ['/infra/domains/default/groups/cmd-web'],
        },
      ],
    });
    await sim.must('PATCH', `${SP}/cmd-policy/container-cluster-span/${CLUSTER}`, {
      container_cluster_path: CLUSTER_PATH,
    });
    const uid = ((await sim.must('GET', `${SP}/cmd-policy`)) as { unique_id: string }).unique_id;
    const acnp = await eventually(async () => getJson(kube, ['get', 'acnp', uid]), 'ACNP');
    expect(acnp.spec.tier).toBe('nsx-category-emergency');
    // Heartbeats reach NSX with the CCP adapter's health.
    await eventually(async () => {
      const s = (await sim.must('GET', `${CCP}/${CLUSTER}/status`)) as {
        ccp_adapter_status?: { status: string };
      };
      return s.ccp_adapter_status?.status === 'UP';
    }, 'heartbeat');

    // Its own health endpoint (port 0: the one it picked is in its log) says UP for both adapters.
    const port = await eventually(async () => {
      const line = output.split('\n').find((l) => l.includes('"msg":"health endpoint listening"'));
      return line ? (JSON.parse(line) as { port: number }).port : undefined;
    }, 'health endpoint');
    const health = await eventually(async () => {
      const h = (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as { status: string };
      return h.status === 'UP' ? h : undefined;
    }, 'healthz UP');
    expect(health).toMatchObject({ mp: { status: 'UP' }, ccp: { status: 'UP' } });

    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('NSX adapter running');

    await sim.must('DELETE', `${SP}/cmd-policy`);
    await sim.must('DELETE', `${G}/cmd-web`);
    await kube.kubectl(['delete', 'acnp', '-l', 'ccp-adapter.antrea.tanzu.vmware.com/managedBy=ccp-adapter']);
  });
});
