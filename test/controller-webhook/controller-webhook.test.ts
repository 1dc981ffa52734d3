import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  AntreaController,
  type CrdClusterNetworkPolicy,
  type CrdRule,
  defaultRuleName,
} from '@antrea-ts/controller';
import {
  applyObjects,
  type ExtensionServerSetup,
  freePort,
  installCrds,
  type KubeCluster,
  startExtensionServerSetup,
  waitFor,
} from '@antrea-ts/harness';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

// antrea-controller in-process serving its admission webhooks to a real kube-apiserver: the
// webhook configurations of the deployment manifest (build/yamls/antrea.yml), the CA bundle the
// controller injects into them, and kubectl seeing Antrea's messages.

// kube-apiserver resolves the webhooks' Service to its endpoints (aggregator routing), which must
// not be loopback: serve on a veth address of our own (see startExtensionServerSetup).
const SERVER_IP = '198.18.254.1';
const logger = pino({ level: process.env['ANTREA_TS_LOG'] ?? 'silent' });
const crdDir = fileURLToPath(new URL('../../build/crds/', import.meta.url));
const manifest = fileURLToPath(new URL('../../build/yamls/antrea.yml', import.meta.url));

let setup: ExtensionServerSetup;
let kube: KubeCluster;
let controller: AntreaController;
let port: number;
/** Added to the controller's wall clock (certificate rotation). */
let clockOffsetMs = 0;

type Obj = Record<string, unknown>;

function webhookConfigurations(): Obj[] {
  return parseAllDocuments(readFileSync(manifest, 'utf8'))
    .map((d) => d.toJSON() as Obj | null)
    .filter(
      (o): o is Obj =>
        o !== null &&
        ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].includes(String(o['kind'])),
    );
}

function apply(obj: Obj | Obj[], extra: string[] = []): Promise<string> {
  return applyObjects(kube, Array.isArray(obj) ? obj : [obj], extra);
}

/** kubectl's error output once a command, tried again until then, is refused (a webhook catching up). */
function refusedEventually(what: string, command: () => Promise<unknown>): Promise<string> {
  return waitFor(
    what,
    async () => {
      try {
        await command();
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
    30_000,
    200,
  );
}

/** kubectl's error output of a refused command. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the request was admitted');
}

const acnp = (name: string, spec: Obj): Obj => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'ClusterNetworkPolicy',
  metadata: { name },
  spec,
});
const tier = (name: string, priority: number): Obj => ({
  apiVersion: 'crd.antrea.io/v1beta1',
  kind: 'Tier',
  metadata: { name },
  spec: { priority },
});
const appliedTo = [{ podSelector: { matchLabels: { app: 'web' } } }];

beforeAll(async () => {
  setup = await startExtensionServerSetup({ ip: SERVER_IP, logger });
  kube = setup.kube;
  port = await freePort(SERVER_IP);
  await installCrds(kube, [crdDir]);
  await setup.expose({ name: 'antrea', namespace: 'kube-system', port, portName: 'api' }, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
    ...webhookConfigurations(),
  ]);
  controller = new AntreaController(
    {
      version: 'test',
      bindAddress: SERVER_IP,
      apiPort: port,
      service: { name: 'antrea', namespace: 'kube-system', port: 443 },
      publishCaBundle: true,
      antreaPolicy: true,
      enablePrometheusMetrics: false,
      controllerInfoIntervalMs: 60_000,
    },
    {
      logger,
      kubeConfig: kube.kubeConfig,
      clock: {
        now: () => new Date(Date.now() + clockOffsetMs),
        monotonicMs: () => performance.now(),
      },
    },
  );
  await controller.start();
  // The static Tiers are created through the Tier webhook, so they exist once it answers.
  await controller.tiersInitialized;
  await waitFor(
    'static Tier application',
    async () => (await tryKubectl(['get', 'tier', 'application'])) !== undefined,
    60_000,
    200,
  );
});

async function tryApply(obj: Obj): Promise<string | undefined> {
  try {
    return await apply(obj);
  } catch {
    return undefined;
  }
}

async function tryKubectl(args: string[]): Promise<string | undefined> {
  try {
    return await kube.kubectl(args);
  } catch {
    return undefined;
  }
}

afterAll(async () => {
  await controller?.stop();
  await setup?.stop();
});

describe('antrea-controller admission webhooks against a real kube-apiserver', () => {
  it('injects the controller CA into every webhook of the labelled configurations', async () => {
    const bundle = Buffer.from(controller.certificates.current().caBundlePem).toString('base64');
    for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
      const list = JSON.parse(
        await kube.kubectl(['get', kind, '-l', 'served-by=antrea-controller', '-o', 'json']),
      );
      expect(list.items.length).toBe(1);
      for (const w of list.items[0].webhooks) expect(w.clientConfig.caBundle).toBe(bundle);
    }
  });

  it('refuses an ACNP in a Tier that does not exist, with Antrea message', async () => {
    const msg = await refusal(
      apply(acnp('unknown-tier', { tier: 'nope', priority: 1, appliedTo, ingress: [{ action: 'Allow' }] })),
    );
    expect(msg).toContain(
      'admission webhook "acnpvalidator.antrea.io" denied the request: tier nope does not exist',
    );
    expect(await tryKubectl(['get', 'acnp', 'unknown-tier'])).toBeUndefined();
  });

  it('names unnamed rules and defaults the Tier as Antrea mutator does', async () => {
    const ingress = [{ action: 'Allow', from: [{ podSelector: { matchLabels: { app: 'client' } } }] }];
    const egress = [{ action: 'Drop', to: [{ ipBlock: { cidr: '10.0.0.0/8' } }], name: 'given' }];
    // The webhook knows Tier application once its informer has seen it.
    await waitFor(
      'ACNP in the default Tier admitted',
      async () =>
        (await tryApply(acnp('unnamed', { priority: 5, appliedTo, ingress, egress }))) !== undefined,
      30_000,
      200,
    );
    const stored = JSON.parse(
      await kube.kubectl(['get', 'acnp', 'unnamed', '-o', 'json']),
    ) as CrdClusterNetworkPolicy;
    expect(stored.spec.tier).toBe('application');
    const { name, ...rule } = stored.spec.ingress![0]!;
    expect(name).toBe(defaultRuleName('ingress', rule as CrdRule));
    expect(name).toMatch(/^ingress-allow-[0-9a-f]{7}$/);
    expect(stored.spec.egress![0]!.name).toBe('given');
    // An update keeps given names and names a new unnamed rule.
    await kube.kubectl([
      'patch',
      'acnp',
      'unnamed',
      '--type=json',
      '-p',
      JSON.stringify([
        {
          op: 'add',
          path: '/spec/egress/-',
          value: { action: 'Reject', to: [{ ipBlock: { cidr: '192.168.0.0/16' } }] },
        },
      ]),
    ]);
    const updated = JSON.parse(
      await kube.kubectl(['get', 'acnp', 'unnamed', '-o', 'json']),
    ) as CrdClusterNetworkPolicy;
    expect(updated.spec.ingress![0]!.name).toBe(name);
    expect(updated.spec.egress![1]!.name).toMatch(/^egress-reject-[0-9a-f]{7}$/);
  });

  it('refuses a Tier with the priority of an existing one', async () => {
    await apply(tier('t1', 10));
    // The controller learns of t1 through its informer: a server-side dry run asks without side effects.
    const msg = await refusedEventually('duplicate priority refused', () =>
      kube.kubectl(['create', '--dry-run=server', '-f', '-'], { input: JSON.stringify(tier('t2', 10)) }),
    );
    expect(msg).toContain(
      'admission webhook "tiervalidator.antrea.io" denied the request: tier t2 priority 10 overlaps with existing Tier',
    );
    expect(await refusal(apply(tier('t2', 10)))).toContain('tier t2 priority 10 overlaps with existing Tier');
    expect(await refusal(apply(tier('t3', 251)))).toContain('tier t3 priority 251 is reserved');
    // Priority is immutable for everyone but antrea-controller.
    expect(
      await refusal(kube.kubectl(['patch', 'tier', 't1', '--type=merge', '-p', '{"spec":{"priority":11}}'])),
    ).toContain('update to Tier priority is not allowed');
  });

  it('refuses deleting a Tier a policy references, and a reserved Tier', async () => {
    await apply(tier('t4', 20));
    const inT4 = acnp('in-t4', {
      tier: 't4',
      priority: 1,
      appliedTo,
      ingress: [{ action: 'Allow', name: 'r' }],
    });
    await waitFor('ACNP in t4 admitted', async () => (await tryApply(inT4)) !== undefined, 30_000, 200);
    const msg = await refusedEventually('referenced Tier delete refused', () =>
      kube.kubectl(['delete', '--dry-run=server', 'tier', 't4']),
    );
    expect(msg).toContain(
      'admission webhook "tiervalidator.antrea.io" denied the request: tier t4 is referenced by 1 Antrea ClusterNetworkPolicies',
    );
    expect(await refusal(kube.kubectl(['delete', 'tier', 'application']))).toContain(
      'cannot delete reserved tier application',
    );
    await kube.kubectl(['delete', 'acnp', 'in-t4']);
    await waitFor(
      'unreferenced Tier deleted',
      async () => (await tryKubectl(['delete', 'tier', 't4'])) !== undefined,
      30_000,
      200,
    );
  });

  it('validates Antrea NetworkPolicies, ClusterGroups and Groups', async () => {
    const annp = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'NetworkPolicy',
      metadata: { name: 'a', namespace: 'x' },
      spec: { priority: 1, ingress: [{ action: 'Allow' }] },
    };
    expect(await refusal(apply(annp))).toContain(
      'admission webhook "annpvalidator.antrea.io" denied the request: appliedTo needs to be set in either spec or rules',
    );
    const group = (spec: Obj): Obj => ({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Group',
      metadata: { name: 'g', namespace: 'x' },
      spec,
    });
    expect(
      await refusal(
        apply(group({ podSelector: { matchLabels: { app: 'db' } }, ipBlocks: [{ cidr: '10.0.0.0/8' }] })),
      ),
    ).toContain(
      'admission webhook "groupvalidator.antrea.io" denied the request: At most one of podSelector, externalEntitySelector, serviceReference, ipBlocks or childGroups can be set for a Group',
    );
    expect(await refusal(apply(group({ childGroups: ['g'] })))).toContain(
      'cannot set Group x/g as its own childGroup',
    );
    // As in Antrea, a Group may select Pods of other Namespaces (it then cannot be an ANNP appliedTo).
    await apply(
      group({
        podSelector: { matchLabels: { app: 'db' } },
        namespaceSelector: { matchLabels: { env: 'prod' } },
      }),
    );
    const cg = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ClusterGroup',
      metadata: { name: 'cg' },
      spec: { podSelector: {}, ipBlocks: [{ cidr: '10.0.0.0/8' }] },
    };
    expect(await refusal(apply(cg))).toContain(
      'admission webhook "clustergroupvalidator.antrea.io" denied the request: At most one of podSelector, nodeSelector, externalEntitySelector, serviceReference, ipBlock, ipBlocks or childGroups can be set for a ClusterGroup',
    );
  });

  it('validates ExternalIPPools and Egresses', async () => {
    const pool = (name: string, cidr: string): Obj => ({
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'ExternalIPPool',
      metadata: { name },
      spec: { ipRanges: [{ cidr }], nodeSelector: {} },
    });
    await apply(pool('pool-a', '10.20.0.0/24'));
    expect(
      await refusedEventually('overlapping pool refused', () => apply(pool('pool-b', '10.20.0.128/25'))),
    ).toContain(
      'admission webhook "externalippoolvalidator.antrea.io" denied the request: range [10.20.0.128/25] overlaps with range [10.20.0.0/24] of pool pool-a',
    );
    const egress: Obj = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'Egress',
      metadata: { name: 'eg' },
      spec: { appliedTo: { podSelector: {} }, externalIPPool: 'pool-a', egressIP: '10.21.0.1' },
    };
    expect(await refusal(apply(egress))).toContain(
      'admission webhook "egressvalidator.antrea.io" denied the request: IP 10.21.0.1 is not within the IP range',
    );
    // An IP inside the pool is admitted (a validator refusing every Egress fails here).
    await apply({ ...egress, spec: { ...(egress['spec'] as Obj), egressIP: '10.20.0.7' } });
  });

  // Last: the rotated serving certificate starts in the controller's future.
  it('injects the new bundle after a CA rotation', async () => {
    const before = controller.certificates.current().caBundlePem;
    // Four years on, the five-year CA can no longer cover a full serving certificate: a next CA
    // is staged and the bundle grows.
    clockOffsetMs = 4 * 365 * 86_400_000;
    expect(controller.certificates.checkRotation()).toBe(true);
    const after = controller.certificates.current().caBundlePem;
    expect(after).not.toBe(before);
    const bundle = Buffer.from(after).toString('base64');
    await waitFor(
      'webhook configurations carry the rotated bundle',
      async () => {
        for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
          const list = JSON.parse(
            await kube.kubectl(['get', kind, '-l', 'served-by=antrea-controller', '-o', 'json']),
          );
          for (const w of list.items[0].webhooks) if (w.clientConfig.caBundle !== bundle) return false;
        }
        return true;
      },
      30_000,
      200,
    );
  });
});
