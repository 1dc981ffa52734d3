// A small stand-in for antrea-controller's API server: serves canned controlplane objects, the
// ControllerInfo, support bundles and the non-resource handlers at Antrea's paths over HTTPS, and
// records who called (the aggregator's front-proxy identity, or the client certificate).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import {
  ADDRESS_GROUPS,
  APPLIED_TO_GROUPS,
  CONTROLLER_INFO,
  NETWORK_POLICIES,
} from '@antrea-ts/antctl/testing';

export interface SeenRequest {
  method: string;
  url: string;
  /** X-Remote-User set by the aggregator. */
  remoteUser?: string;
  /** CN of the client certificate (front-proxy-client through the aggregator, admin direct). */
  clientCN?: string;
  /** Authorization header (agents are called with a ServiceAccount token). */
  authorization?: string;
  body: string;
}

const CP = '/apis/controlplane.antrea.io/v1beta2';
const SYS = '/apis/system.antrea.io/v1beta1';

export const BUNDLE_BYTES = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8]);

function discovery(groupVersion: string, resources: { name: string; kind: string; verbs: string[] }[]) {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: resources.map((r) => ({ ...r, namespaced: false, singularName: '' })),
  };
}

export async function startFakeController(opts: {
  ip: string;
  cert: string;
  key: string;
  clientCas: string[];
}): Promise<{ server: Server; port: number; seen: SeenRequest[]; logLevel: { value: number } }> {
  const seen: SeenRequest[] = [];
  const logLevel = { value: 0 };
  // Serves both the controller's bundle and, standing in for an agent API, the agent's.
  const bundles = new Map<string, 'Collecting' | 'Collected'>();
  const server = createServer(
    {
      cert: readFileSync(opts.cert),
      key: readFileSync(opts.key),
      ca: opts.clientCas.map((p) => readFileSync(p)),
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        seen.push({
          method: req.method ?? 'GET',
          url: req.url ?? '',
          remoteUser: req.headers['x-remote-user'] as string | undefined,
          clientCN: peer?.subject?.CN as string | undefined,
          authorization: req.headers.authorization as string | undefined,
          body,
        });
        const url = new URL(req.url ?? '/', 'https://x');
        const json = (status: number, v: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(v));
        };
        const notFound = (name: string) =>
          json(404, {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'NotFound',
            message: `"${name}" not found`,
            details: { name },
            code: 404,
          });
        const p = url.pathname;
        if (p === CP) {
          return json(
            200,
            discovery('controlplane.antrea.io/v1beta2', [
              { name: 'networkpolicies', kind: 'NetworkPolicy', verbs: ['get', 'list', 'watch'] },
              { name: 'addressgroups', kind: 'AddressGroup', verbs: ['get', 'list', 'watch'] },
              { name: 'appliedtogroups', kind: 'AppliedToGroup', verbs: ['get', 'list', 'watch'] },
              { name: 'networkpolicyevaluation', kind: 'NetworkPolicyEvaluation', verbs: ['create'] },
            ]),
          );
        }
        if (p === SYS) {
          return json(
            200,
            discovery('system.antrea.io/v1beta1', [
              { name: 'controllerinfos', kind: 'AntreaControllerInfo', verbs: ['get', 'list'] },
              { name: 'supportbundles', kind: 'SupportBundle', verbs: ['create', 'get', 'delete'] },
            ]),
          );
        }
        const lists: Record<string, { items: { metadata: { name: string } }[] }> = {
          [`${CP}/networkpolicies`]: NETWORK_POLICIES,
          [`${CP}/addressgroups`]: ADDRESS_GROUPS,
          [`${CP}/appliedtogroups`]: APPLIED_TO_GROUPS,
        };
        if (lists[p]) return json(200, lists[p]);
        for (const [base, list] of Object.entries(lists)) {
          if (p.startsWith(`${base}/`)) {
            const name = decodeURIComponent(p.slice(base.length + 1));
            const item = list.items.find((i) => i.metadata.name === name);
            return item ? json(200, item) : notFound(name);
          }
        }
        if (p === `${CP}/networkpolicyevaluation` && req.method === 'POST') {
          return json(201, {
            ...JSON.parse(body),
            response: {
              networkPolicy: {
                type: 'AntreaNetworkPolicy',
                namespace: 'prod',
                name: 'annp-deny',
                uid: 'u-annp',
              },
              ruleIndex: 0,
              rule: { direction: 'Out', action: 'Drop' },
            },
          });
        }
        if (p === `${SYS}/controllerinfos/antrea-controller`) return json(200, CONTROLLER_INFO);
        if (p === `${SYS}/supportbundles` && req.method === 'POST') {
          const name = JSON.parse(body).metadata.name as string;
          bundles.set(name, 'Collecting');
          // Collection takes a moment, so the client has to poll.
          setTimeout(() => bundles.set(name, 'Collected'), 700);
          return json(201, { kind: 'SupportBundle', metadata: { name }, status: 'Collecting' });
        }
        const bundle = /^\/apis\/system\.antrea\.io\/v1beta1\/supportbundles\/([a-z]+)(\/download)?$/.exec(p);
        if (bundle) {
          const name = bundle[1] as string;
          const state = bundles.get(name);
          if (state === undefined) return notFound(name);
          if (!bundle[2]) return json(200, { kind: 'SupportBundle', metadata: { name }, status: state });
          res.writeHead(200, { 'content-type': 'application/tar+gzip' });
          return res.end(Buffer.concat([BUNDLE_BYTES, Buffer.from(name)]));
        }
        if (p === '/featuregates') {
          return json(200, [
            { component: 'agent', name: 'AntreaPolicy', status: 'Enabled', version: 'BETA' },
            { component: 'controller', name: 'Traceflow', status: 'Enabled', version: 'BETA' },
          ]);
        }
        if (p === '/loglevel') {
          const l = url.searchParams.get('level');
          if (l !== null) logLevel.value = Number(l);
          return json(200, logLevel.value);
        }
        if (p === '/endpoint') {
          return json(200, {
            endpoints: [
              {
                namespace: url.searchParams.get('namespace') ?? 'default',
                name: url.searchParams.get('pod') ?? '',
                policies: [
                  { type: 'AntreaNetworkPolicy', namespace: 'prod', name: 'annp-deny', uid: 'u-annp' },
                ],
              },
            ],
          });
        }
        return json(404, {
          kind: 'Status',
          code: 404,
          message: 'the server could not find the requested resource',
          reason: 'NotFound',
        });
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, opts.ip, resolve));
  return { server, port: (server.address() as { port: number }).port, seen, logLevel };
}
