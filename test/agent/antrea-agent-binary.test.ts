// The antrea-agent binary as a Node runs it: a process inside the Node's network namespace, talking
// to its OVS over unix sockets and to kube-apiserver over the underlay, and serving its HTTPS API
// to callers kube-apiserver authenticates (TokenReview) and authorizes (SubjectAccessReview).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { agentApiCertificates } from '@antrea-ts/agent';
import {
  createNetns,
  createNetnsNode,
  createUnderlay,
  type KubeCluster,
  ManagedProcess,
  makeTempDir,
  type Netns,
  type NetnsNode,
  startKube,
  type TempDir,
  type Underlay,
  uniqueTag,
  waitFor,
} from '@antrea-ts/harness';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentApiGet, caFromAgentInfo } from './agent-api-client.js';
import { buildCniPlugin, CNI_BIN_DIR, createNodeObject, NET_CONF, ping, ROOT, runCni } from './lab.js';

const logger = pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
/** Another agent's CA: must not verify this agent's certificate. */
const FOREIGN_CA = agentApiCertificates(logger).current().caBundlePem;

describe('antrea-agent binary in a netns Node', () => {
  let underlay: Underlay;
  let kube: KubeCluster;
  let node: NetnsNode;
  let dir: TempDir;
  let agent: ManagedProcess;
  let pod: Netns;
  const apiPort = 10350;

  beforeAll(async () => {
    await buildCniPlugin();
    await promisify(execFile)('npx', ['tsc', '-b', 'cmd/antrea-agent'], { cwd: ROOT });
    underlay = await createUnderlay();
    kube = await startKube({ logger, bindAddress: underlay.hostIp });
    await kube.kubectl(['apply', '-f', `${ROOT}build/crds/crd-antreaagentinfo.yaml`]);
    node = await createNetnsNode({ name: 'bin1', underlay });
    await createNodeObject(kube, 'bin1', '10.60.1.0/24', node.nodeIp);
    dir = makeTempDir('agent-bin');
    const conf = join(dir.path, 'antrea-agent.conf');
    // The kubeconfig names an address nobody answers (as the kubernetes ClusterIP on a Node without
    // kube-proxy); the agent reaches kube-apiserver through Antrea's kubeAPIServerOverride only.
    const kubeconfigText = readFileSync(kube.kubeconfigPath, 'utf8');
    const server = /server: (\S+)/.exec(kubeconfigText)?.[1];
    if (!server) throw new Error('no server in the harness kubeconfig');
    const kubeconfig = join(dir.path, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigText.replace(server, 'https://192.0.2.1:443'));
    writeFileSync(
      conf,
      `ovsDatapathType: netdev\ntrafficEncapMode: encap\ntunnelType: vxlan\nkubeAPIServerOverride: ${server}\n`,
    );
    agent = new ManagedProcess({
      name: 'antrea-agent',
      netns: node.netns.name,
      logFile: join(dir.path, 'agent.log'),
      argv: [
        process.execPath,
        join(ROOT, 'dist/cmd/antrea-agent/main.js'),
        `--config=${conf}`,
        `--kubeconfig=${kubeconfig}`,
        '--node-name=bin1',
        `--ovs-run-dir=${node.ovs.runDir}`,
        `--cni-socket=${join(dir.path, 'cni.sock')}`,
        `--cni-bin-dir=${CNI_BIN_DIR}`,
        `--host-local-data-dir=${join(dir.path, 'ipam')}`,
        `--api-port=${apiPort}`,
        `--api-token-file=${join(dir.path, 'apiserver', 'loopback-client-token')}`,
        `--cni-conf-dir=${join(dir.path, 'net.d')}`,
        '--log-level=debug',
      ],
    });
    await waitFor(
      `agent /readyz (log: ${join(dir.path, 'agent.log')})`,
      async () => {
        agent.assertRunning();
        return (await node.netns.exec(['curl', '-sfk', `https://127.0.0.1:${apiPort}/readyz`])) === 'ok';
      },
      60_000,
      200,
    ).catch((err: unknown) => {
      throw new Error(
        `${(err as Error).message}\n${readFileSync(join(dir.path, 'agent.log'), 'utf8')
          .split('\n')
          .filter((l) => !l.includes('OpenFlow connect failed'))
          .join('\n')
          .slice(-3000)}`,
      );
    });
  });

  afterAll(async () => {
    if (pod) {
      await runCni(env('DEL'), NET_CONF).catch(() => undefined);
      await pod.delete();
    }
    await agent?.stop();
    await node?.delete();
    dir?.remove();
    await kube?.stop();
    await underlay?.delete();
  });

  function env(command: string) {
    return {
      CNI_COMMAND: command,
      CNI_CONTAINERID: 'cbin1',
      CNI_NETNS: `/var/run/netns/${pod.name}`,
      CNI_IFNAME: 'eth0',
      CNI_ARGS: 'IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=p1',
      CNI_PATH: CNI_BIN_DIR,
      ANTREA_CNI_SOCKET: join(dir.path, 'cni.sock'),
    };
  }

  it('reads its config file (VXLAN tunnel, kubeAPIServerOverride), wires a Pod, and serves its API on 10350', async () => {
    expect(await node.ovs.vsctl(['get', 'interface', 'antrea-tun0', 'type'])).toBe('vxlan\n');
    expect(readFileSync(join(dir.path, 'net.d', '10-antrea.conflist'), 'utf8')).toContain('"portmap"');
    pod = await createNetns(`ats-${uniqueTag()}-p1`);
    const add = await runCni(env('ADD'), NET_CONF);
    expect(add.code).toBe(0);
    expect(await ping(pod, '10.60.1.1')).toBe(true);
    // antctl inside the agent Pod: loopback, the loopback token, no verification.
    const token = readFileSync(join(dir.path, 'apiserver', 'loopback-client-token'), 'utf8');
    const pods = JSON.parse(
      await node.netns.exec([
        'curl',
        '-sfk',
        '-H',
        `Authorization: Bearer ${token}`,
        `https://127.0.0.1:${apiPort}/podinterfaces`,
      ]),
    ) as unknown[];
    expect(pods).toHaveLength(1);
    // antctl trace-packet's endpoint: the agent runs ofproto/trace on the real bridge.
    const trace = JSON.parse(
      await node.netns.exec([
        'curl',
        '-sk',
        '-H',
        `Authorization: Bearer ${token}`,
        `https://127.0.0.1:${apiPort}/ovstracing?source=default/p1&destination=10.60.1.1&flow=icmp`,
      ]),
    ) as { result: string; error?: string };
    expect(trace.error).toBeUndefined();
    expect(trace.result).toContain('bridge("br-int")');
    expect(trace.result).toMatch(/^Flow: icmp,in_port=\d+,.*nw_dst=10\.60\.1\.1/m);
    const actions = trace.result.split('\n').find((l) => l.startsWith('Datapath actions:'));
    expect(actions).toBeDefined();
    expect(actions).not.toBe('Datapath actions: drop');
  });

  it('serves its API over HTTPS on the Node IP to callers kube-apiserver authenticates and authorizes', async () => {
    // From outside the Node, as antctl supportbundle dials agents: the Node IP, verified against
    // the CA the agent publishes in its AntreaAgentInfo, with servername localhost.
    const info = JSON.parse(await kube.kubectl(['get', 'antreaagentinfo', 'bin1', '-o', 'json'])) as {
      apiCABundle?: string;
      apiPort?: number;
    };
    expect(info.apiPort).toBe(apiPort);
    const ca = caFromAgentInfo(info);
    const base = `https://${node.nodeIp}:${apiPort}`;
    const get = (path: string, token?: string) =>
      agentApiGet(base, path, { ca, ...(token ? { token } : {}) });

    // Health paths are open (kubelet's probes); everything else wants credentials.
    expect(await get('/livez')).toEqual({ status: 200, text: 'ok' });
    expect((await get('/readyz')).status).toBe(200);
    const anonymous = await get('/podinterfaces');
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect((await get('/podinterfaces', 'not-a-token')).status).toBe(401);

    // A ServiceAccount kube-apiserver knows, without the nonResourceURL grant: 403.
    await kube.kubectl(['create', 'serviceaccount', 'agent-api-reader', '-n', 'default']);
    const saToken = (await kube.kubectl(['create', 'token', 'agent-api-reader', '-n', 'default'])).trim();
    const denied = await get('/podinterfaces', saToken);
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text)).toMatchObject({
      reason: 'Forbidden',
      message:
        'forbidden: User "system:serviceaccount:default:agent-api-reader" cannot get path "/podinterfaces"',
    });

    // Granted through RBAC (antctl's ClusterRole grants these nonResourceURLs): 200, for that path only.
    await kube.kubectl([
      'create',
      'clusterrole',
      'agent-api-podinterfaces',
      '--verb=get',
      '--non-resource-url=/podinterfaces',
    ]);
    await kube.kubectl([
      'create',
      'clusterrolebinding',
      'agent-api-podinterfaces',
      '--clusterrole=agent-api-podinterfaces',
      '--serviceaccount=default:agent-api-reader',
    ]);
    // Denials are not cached, so the grant counts on the next request once RBAC has it.
    await waitFor(
      'the grant to take effect',
      async () => (await get('/podinterfaces', saToken)).status === 200,
    );
    const granted = await get('/podinterfaces', saToken);
    expect(JSON.parse(granted.text)).toEqual([
      expect.objectContaining({ name: 'p1', podNamespace: 'default' }),
    ]);
    expect((await get('/ovsflows', saToken)).status).toBe(403);

    // The loopback token works from anywhere it is presented, as a privileged user.
    const loopback = readFileSync(join(dir.path, 'apiserver', 'loopback-client-token'), 'utf8');
    expect((await get('/ovsflows?table=L3Forwarding', loopback)).status).toBe(200);

    // The certificate is the agent's own: a client trusting another CA refuses it.
    await expect(agentApiGet(base, '/livez', { ca: FOREIGN_CA })).rejects.toThrow();
  });

  it('exits cleanly on SIGTERM, leaving the Pod connected', async () => {
    await agent.stop();
    expect(await ping(pod, '10.60.1.1')).toBe(true);
  });
});
