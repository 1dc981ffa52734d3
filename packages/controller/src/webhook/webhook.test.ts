import type { CertificateSource, PlainRequest, PlainResponse } from '@antrea-ts/apiserver';
import type { V1ValidatingWebhookConfiguration } from '@kubernetes/client-node';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { defaultRuleName } from '../compute/rule-name.js';
import type { CrdClusterNetworkPolicy, CrdGroup, CrdTier } from '../inputs.js';
import type { AdmissionRequest, AdmissionReview } from './admission.js';
import { serveAdmissionReview } from './admission.js';
import { WebhookCaInjector, type WebhookConfigurationClient } from './ca-injector.js';
import { webhookEndpoints } from './endpoints.js';
import { mutateAntreaPolicy } from './mutator.js';
import { AdmissionState } from './state.js';
import { AdmissionValidator } from './validator.js';

const logger = pino({ level: 'silent' });
const CRD = { group: 'crd.antrea.io', version: 'v1beta1' };

function post(review: unknown, contentType = 'application/json'): PlainRequest {
  return { method: 'POST', contentType, body: Buffer.from(JSON.stringify(review)) };
}

function request(kind: string, operation: AdmissionRequest['operation'], object: unknown, extra = {}) {
  return { uid: `uid-${kind}`, kind: { ...CRD, kind }, operation, object, ...extra } as AdmissionRequest;
}

function tier(name: string, priority: number): CrdTier {
  return { metadata: { name }, spec: { priority } };
}

function acnp(spec: Record<string, unknown>, name = 'p'): CrdClusterNetworkPolicy {
  return { metadata: { name }, spec } as unknown as CrdClusterNetworkPolicy;
}

const appliedTo = [{ podSelector: {} }];

function setup() {
  const state = new AdmissionState();
  for (const [n, p] of [
    ['application', 250],
    ['baseline', 253],
    ['t1', 10],
  ] as const)
    state.tiers.set(n, tier(n, p));
  const validator = new AdmissionValidator(state, {
    controllerServiceAccount: { namespace: 'kube-system', name: 'antrea-controller' },
  });
  const endpoints = webhookEndpoints(validator);
  const call = (path: string, req: AdmissionRequest): AdmissionReview => {
    const res = endpoints.get(path)!(
      post({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: req }),
    );
    expect(res).toMatchObject({ status: 200, contentType: 'application/json' });
    return JSON.parse(String((res as { body: string }).body)) as AdmissionReview;
  };
  return { state, validator, call };
}

describe('serveAdmissionReview', () => {
  it('echoes the uid and answers AdmissionReview v1 with status.message and warnings', () => {
    const res = serveAdmissionReview(
      post({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: request('Tier', 'CREATE', {}),
      }),
      () => ({ allowed: false, message: 'no', warnings: ['careful'] }),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(String(res.body))).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'uid-Tier',
        allowed: false,
        status: { metadata: {}, message: 'no' },
        warnings: ['careful'],
      },
    });
  });

  it('sends a patch base64-encoded with patchType JSONPatch, and none when empty', () => {
    const patch = [{ op: 'add' as const, path: '/spec/tier', value: 'application' }];
    const withPatch = JSON.parse(
      String(
        serveAdmissionReview(post({ request: request('X', 'CREATE', {}) }), () => ({ allowed: true, patch }))
          .body,
      ),
    ) as AdmissionReview;
    expect(withPatch.response?.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(withPatch.response!.patch!, 'base64').toString())).toEqual(patch);
    const without = JSON.parse(
      String(
        serveAdmissionReview(post({ request: request('X', 'CREATE', {}) }), () => ({
          allowed: true,
          patch: [],
        })).body,
      ),
    ) as AdmissionReview;
    expect(without.response).toEqual({ uid: 'uid-X', allowed: true });
  });

  it('refuses empty bodies (400), other content types (415) and other methods (405)', () => {
    const h = () => ({ allowed: true });
    expect(
      serveAdmissionReview({ method: 'POST', contentType: 'application/json', body: Buffer.alloc(0) }, h)
        .status,
    ).toBe(400);
    expect(serveAdmissionReview(post({}, 'application/yaml'), h).status).toBe(415);
    expect(serveAdmissionReview(post({}, 'application/json; charset=utf-8'), h).status).toBe(200);
    expect(serveAdmissionReview({ ...post({}), method: 'GET' }, h).status).toBe(405);
  });

  it('denies with the decoding error a body that is not a review, and a handler that throws', () => {
    const bad = serveAdmissionReview(
      { method: 'POST', contentType: 'application/json', body: Buffer.from('{nope') },
      () => ({ allowed: true }),
    );
    const review = JSON.parse(String(bad.body)) as AdmissionReview;
    expect(review.response?.allowed).toBe(false);
    expect(review.response?.status?.message).toMatch(/JSON/);
    const thrown = JSON.parse(
      String(
        serveAdmissionReview(post({ request: request('X', 'CREATE', {}) }), () => {
          throw new Error('boom');
        }).body,
      ),
    ) as AdmissionReview;
    expect(thrown.response).toMatchObject({ uid: 'uid-X', allowed: false, status: { message: 'boom' } });
  });
});

describe('validating webhooks', () => {
  it('refuses an ACNP with an unknown tier with Antrea message, admits a known one', () => {
    const { call } = setup();
    const bad = call(
      '/validate/acnp',
      request('ClusterNetworkPolicy', 'CREATE', acnp({ tier: 'nope', priority: 1, appliedTo, ingress: [] })),
    );
    expect(bad.response).toMatchObject({
      uid: 'uid-ClusterNetworkPolicy',
      allowed: false,
      status: { message: 'tier nope does not exist' },
    });
    const good = call(
      '/validate/acnp',
      request('ClusterNetworkPolicy', 'UPDATE', acnp({ tier: 't1', priority: 1, appliedTo })),
    );
    expect(good.response).toEqual({ uid: 'uid-ClusterNetworkPolicy', allowed: true });
    // DELETE of a policy is not checked.
    expect(call('/validate/acnp', request('ClusterNetworkPolicy', 'DELETE', null)).response?.allowed).toBe(
      true,
    );
  });

  it('warns of log labels longer than 12 bytes in policies applied to Nodes', () => {
    const { call } = setup();
    const ingress = [
      { action: 'Allow', name: 'long', enableLogging: true, logLabel: 'thirteen-char' },
      { action: 'Allow', name: 'short', enableLogging: true, logLabel: 'twelve-chars' },
      { action: 'Allow', name: 'off', logLabel: 'thirteen-char' },
    ];
    const onNodes = call(
      '/validate/acnp',
      request(
        'ClusterNetworkPolicy',
        'CREATE',
        acnp({ tier: 't1', priority: 1, appliedTo: [{ nodeSelector: {} }], ingress }),
      ),
    );
    expect(onNodes.response).toEqual({
      uid: 'uid-ClusterNetworkPolicy',
      allowed: true,
      warnings: [
        'LogLabels for Node NetworkPolicies are limited to 12 characters, but the label "thirteen-char" for policy rule "long" exceeds the limit and will be truncated in kernel logs',
      ],
    });
    const onPods = call(
      '/validate/acnp',
      request('ClusterNetworkPolicy', 'CREATE', acnp({ tier: 't1', priority: 1, appliedTo, ingress })),
    );
    expect(onPods.response).toEqual({ uid: 'uid-ClusterNetworkPolicy', allowed: true });
  });

  it('validates Antrea NetworkPolicies the same way', () => {
    const { call } = setup();
    const r = call(
      '/validate/annp',
      request('NetworkPolicy', 'CREATE', {
        metadata: { name: 'a', namespace: 'x' },
        spec: { priority: 1, tier: 'application', ingress: [{ action: 'Allow' }] },
      }),
    );
    expect(r.response?.status?.message).toBe('appliedTo needs to be set in either spec or rules');
  });

  it('Tier: duplicate priority on create, priority change on update (unless by the controller), referenced delete', () => {
    const { state, call } = setup();
    expect(call('/validate/tier', request('Tier', 'CREATE', tier('t2', 10))).response?.status?.message).toBe(
      'tier t2 priority 10 overlaps with existing Tier',
    );
    expect(call('/validate/tier', request('Tier', 'CREATE', tier('t2', 11))).response?.allowed).toBe(true);
    const upd = request('Tier', 'UPDATE', tier('t1', 12), {
      oldObject: tier('t1', 10),
      userInfo: { username: 'alice' },
    });
    expect(call('/validate/tier', upd).response?.status?.message).toBe(
      'update to Tier priority is not allowed',
    );
    const byController = {
      ...upd,
      userInfo: { username: 'system:serviceaccount:kube-system:antrea-controller' },
    };
    expect(call('/validate/tier', byController).response?.allowed).toBe(true);
    state.clusterNetworkPolicies.set('p', acnp({ tier: 't1', priority: 1 }));
    const del = request('Tier', 'DELETE', null, { oldObject: tier('t1', 10) });
    expect(call('/validate/tier', del).response?.status?.message).toBe(
      'tier t1 is referenced by 1 Antrea ClusterNetworkPolicies',
    );
    state.clusterNetworkPolicies.clear();
    expect(call('/validate/tier', del).response?.allowed).toBe(true);
    expect(
      call('/validate/tier', request('Tier', 'DELETE', null, { oldObject: tier('application', 250) }))
        .response?.status?.message,
    ).toBe('cannot delete reserved tier application');
  });

  it('ClusterGroup and Group: spec rules and one level of childGroups', () => {
    const { state, call } = setup();
    const grp = (name: string, spec: object, namespace?: string): CrdGroup =>
      ({ metadata: { name, ...(namespace ? { namespace } : {}) }, spec }) as CrdGroup;
    expect(
      call(
        '/validate/group',
        request('Group', 'CREATE', grp('g', { podSelector: {}, ipBlocks: [{ cidr: '10.0.0.0/8' }] }, 'x')),
      ).response?.status?.message,
    ).toBe(
      'At most one of podSelector, externalEntitySelector, serviceReference, ipBlocks or childGroups can be set for a Group',
    );
    // The namespace comes from the request when the object lacks it.
    expect(
      call(
        '/validate/group',
        request('Group', 'CREATE', grp('g', { childGroups: ['g'] }), { namespace: 'x' }),
      ).response?.status?.message,
    ).toBe('cannot set Group x/g as its own childGroup');
    state.clusterGroups.set('child', grp('child', { childGroups: ['leaf'] }));
    expect(
      call(
        '/validate/clustergroup',
        request('ClusterGroup', 'CREATE', grp('parent', { childGroups: ['child'] })),
      ).response?.status?.message,
    ).toBe('cannot set ClusterGroup child as childGroup, who has 1 childGroups itself');
    expect(
      call(
        '/validate/clustergroup',
        request('ClusterGroup', 'UPDATE', grp('leaf', { childGroups: ['other'] })),
      ).response?.status?.message,
    ).toBe('cannot set childGroups for ClusterGroup leaf, who has 1 parents');
    // A Group of another Namespace with the same name is not a parent.
    state.groups.set('y/p', grp('p', { childGroups: ['g'] }, 'y'));
    expect(
      call('/validate/group', request('Group', 'CREATE', grp('g', { childGroups: ['c'] }, 'x'))).response
        ?.allowed,
    ).toBe(true);
  });

  it('Egress and ExternalIPPool: IP outside the pool, overlapping pools, removed ranges', () => {
    const { state, call } = setup();
    const pool = (name: string, ipRanges: unknown[]) => ({
      metadata: { name },
      spec: { ipRanges, nodeSelector: {} },
    });
    state.externalIPPools.set('p', pool('p', [{ cidr: '10.0.0.0/24' }]) as never);
    const denied = (path: string, req: AdmissionRequest) => call(path, req).response?.status?.message;
    expect(
      denied(
        '/validate/externalippool',
        request('ExternalIPPool', 'CREATE', pool('q', [{ cidr: '10.0.0.128/25' }])),
      ),
    ).toBe('range [10.0.0.128/25] overlaps with range [10.0.0.0/24] of pool p');
    expect(
      call(
        '/validate/externalippool',
        request('ExternalIPPool', 'CREATE', pool('q', [{ cidr: '10.0.1.0/24' }])),
      ).response?.allowed,
    ).toBe(true);
    expect(
      denied(
        '/validate/externalippool',
        request('ExternalIPPool', 'UPDATE', pool('p', []), {
          oldObject: pool('p', [{ cidr: '10.0.0.0/24' }]),
        }),
      ),
    ).toBe('existing IPRanges [10.0.0.0/24] cannot be deleted');
    const egress = (spec: Record<string, unknown>) => ({
      metadata: { name: 'e' },
      spec: { appliedTo: {}, ...spec },
    });
    expect(
      denied(
        '/validate/egress',
        request('Egress', 'CREATE', egress({ externalIPPool: 'p', egressIP: '10.9.0.1' })),
      ),
    ).toBe('IP 10.9.0.1 is not within the IP range');
    expect(
      call(
        '/validate/egress',
        request('Egress', 'CREATE', egress({ externalIPPool: 'p', egressIP: '10.0.0.7' })),
      ).response?.allowed,
    ).toBe(true);
  });

  it('denies kinds it does not know, without a message', () => {
    const { validator } = setup();
    expect(validator.validate(request('IPPool', 'CREATE', {}))).toEqual({ allowed: false });
    expect(
      validator.validate({
        ...request('Tier', 'CREATE', tier('a', 1)),
        kind: { group: 'crd.antrea.io', version: 'v1alpha1', kind: 'Tier' },
      }),
    ).toEqual({ allowed: false });
  });

  it('follows the informers', () => {
    const state = new AdmissionState();
    const handlers = new Map<string, (o: unknown) => void>();
    const inf = {
      on: (v: string, cb: (o: unknown) => void) => void handlers.set(v, cb),
      start: async () => {},
      stop: async () => {},
    };
    state.follow({ tiers: inf } as never);
    handlers.get('add')!(tier('a', 1));
    handlers.get('update')!(tier('a', 2));
    expect(state.tiers.get('a')?.spec.priority).toBe(2);
    handlers.get('delete')!(tier('a', 2));
    expect(state.tiers.size).toBe(0);
  });
});

describe('mutating webhooks', () => {
  it('names unnamed rules as Antrea does and defaults the tier to application', () => {
    const ingress = [
      { action: 'Allow', from: [{ podSelector: {} }] },
      { action: 'Drop', name: 'keep' },
    ];
    const egress = [{ action: 'Reject' }];
    const d = mutateAntreaPolicy(
      request('ClusterNetworkPolicy', 'CREATE', acnp({ priority: 1, ingress, egress })),
    );
    expect(d).toEqual({
      allowed: true,
      patch: [
        { op: 'add', path: '/spec/ingress/0/name', value: defaultRuleName('ingress', ingress[0] as never) },
        { op: 'add', path: '/spec/egress/0/name', value: defaultRuleName('egress', egress[0] as never) },
        { op: 'add', path: '/spec/tier', value: 'application' },
      ],
    });
    expect((d.patch![0]!.value as string).startsWith('ingress-allow-')).toBe(true);
  });

  it('leaves named rules and set tiers alone; DELETE and other kinds', () => {
    const p = acnp({ tier: 't1', priority: 1, ingress: [{ action: 'Allow', name: 'a' }] });
    expect(mutateAntreaPolicy(request('NetworkPolicy', 'UPDATE', p))).toEqual({ allowed: true, patch: [] });
    expect(mutateAntreaPolicy(request('NetworkPolicy', 'DELETE', null))).toEqual({ allowed: true });
    expect(mutateAntreaPolicy(request('Tier', 'CREATE', {}))).toEqual({ allowed: false });
  });

  it('is served on /mutate/acnp and /mutate/annp', () => {
    const { state } = setup();
    const endpoints = webhookEndpoints(
      new AdmissionValidator(state, { controllerServiceAccount: { namespace: 'n', name: 's' } }),
    );
    for (const path of ['/mutate/acnp', '/mutate/annp']) {
      const res = endpoints.get(path)!(
        post({ request: request('NetworkPolicy', 'CREATE', acnp({ priority: 1 })) }),
      );
      const review = JSON.parse(String((res as PlainResponse).body)) as AdmissionReview;
      expect(JSON.parse(Buffer.from(review.response!.patch!, 'base64').toString())).toEqual([
        { op: 'add', path: '/spec/tier', value: 'application' },
      ]);
    }
  });
});

describe('WebhookCaInjector', () => {
  function fakes() {
    const configs: V1ValidatingWebhookConfiguration[] = [
      {
        metadata: { name: 'crdvalidator.antrea.io' },
        webhooks: [
          { name: 'a', clientConfig: {}, sideEffects: 'None', admissionReviewVersions: ['v1'] },
          { name: 'b', clientConfig: {}, sideEffects: 'None', admissionReviewVersions: ['v1'] },
        ],
      },
    ];
    const replaced: string[] = [];
    const selectors: string[] = [];
    let fail = 0;
    const client: WebhookConfigurationClient = {
      async list(kind, selector) {
        selectors.push(selector);
        if (fail > 0) {
          fail--;
          throw new Error('forbidden');
        }
        return kind === 'validating' ? structuredClone(configs) : [];
      },
      async replace(_kind, c) {
        replaced.push(c.metadata!.name!);
        configs[0] = structuredClone(c as V1ValidatingWebhookConfiguration);
      },
    };
    let listener: (() => void) | undefined;
    let ca = 'CA1';
    const source = {
      current: () => ({ caBundlePem: ca }),
      onChange: (l: () => void) => {
        listener = l;
        return () => {
          listener = undefined;
        };
      },
    } as unknown as CertificateSource;
    return {
      configs,
      replaced,
      selectors,
      client,
      source,
      rotate(next: string) {
        ca = next;
        listener?.();
      },
      failNext(n: number) {
        fail = n;
      },
    };
  }

  it('injects the bundle into every webhook, only when it differs, and again after a rotation', async () => {
    const f = fakes();
    const inj = new WebhookCaInjector({ logger, client: f.client, resyncMs: 60_000 });
    await inj.start(f.source);
    expect(f.selectors[0]).toBe('app=antrea,served-by=antrea-controller');
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    expect(f.configs[0]!.webhooks!.map((w) => w.clientConfig.caBundle)).toEqual([b64('CA1'), b64('CA1')]);
    expect(await inj.sync('CA1')).toBe(0);
    f.rotate('CA2');
    await inj.idle();
    expect(f.configs[0]!.webhooks!.map((w) => w.clientConfig.caBundle)).toEqual([b64('CA2'), b64('CA2')]);
    expect(f.replaced).toHaveLength(2);
    inj.stop();
  });

  it('retries a failed sync', async () => {
    const f = fakes();
    f.failNext(1);
    const inj = new WebhookCaInjector({ logger, client: f.client, retryMs: 10 });
    await inj.start(f.source);
    expect(f.replaced).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 50));
    await inj.idle();
    expect(f.replaced).toEqual(['crdvalidator.antrea.io']);
    inj.stop();
  });
});
