// `antctl query` responses: the controller's /endpoint handler (pkg/apiserver/apis) and the
// NetworkPolicyEvaluation resource (controlplane v1beta2), with Antrea's table layouts.
import { AntctlError } from '../errors.js';
import { formatTable, type TableRows } from '../output/table.js';
import type { NetworkPolicyReferenceJson } from './controlplane.js';

export interface EndpointRuleJson {
  policyref?: NetworkPolicyReferenceJson;
  direction?: string;
  ruleindex?: number;
}

export interface EndpointJson {
  namespace?: string;
  name?: string;
  policies?: NetworkPolicyReferenceJson[];
  ingresssrcrules?: EndpointRuleJson[];
  egressdstrules?: EndpointRuleJson[];
}

export interface EndpointQueryResponseJson {
  endpoints?: EndpointJson[] | null;
}

/** output.TableOutputForQueryEndpoint. */
export function formatEndpointQuery(resp: EndpointQueryResponseJson): string {
  let out = '';
  const section = (label: string, header: string[], body: string[][]) => {
    out += `${body.length === 0 ? `${label} None` : label}\n`;
    if (body.length > 0) out += formatTable({ header, rows: body, sortRows: true });
    out += '\n';
  };
  const rules = (rs: EndpointRuleJson[] | undefined) =>
    (rs ?? []).map((r) => [
      r.policyref?.name ?? '',
      r.policyref?.namespace ?? '',
      String(r.ruleindex ?? 0),
      r.policyref?.uid ?? '',
    ]);
  for (const ep of resp.endpoints ?? []) {
    out += `Endpoint ${ep.namespace ?? ''}/${ep.name ?? ''}\n`;
    section(
      'Applied Policies on Endpoint:',
      ['Name', 'Namespace', 'UID'],
      (ep.policies ?? []).map((p) => [p.name, p.namespace ?? '', p.uid ?? '']),
    );
    section(
      'Egress Rules Referencing Endpoint as Destination:',
      ['Name', 'Namespace', 'Index', 'UID'],
      rules(ep.egressdstrules),
    );
    section(
      'Ingress Rules Referencing Endpoint as Source:',
      ['Name', 'Namespace', 'Index', 'UID'],
      rules(ep.ingresssrcrules),
    );
  }
  return out;
}

/** "ns/pod" or "pod" (Namespace default), as Antrea's parsePeer. */
export function parsePeer(value: string): { namespace: string; name: string } | undefined {
  const parts = value.split('/');
  if (parts.length === 1 && parts[0] !== '') return { namespace: 'default', name: parts[0] as string };
  if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') {
    return { namespace: parts[0] as string, name: parts[1] as string };
  }
  return undefined;
}

/** The body POSTed to .../networkpolicyevaluation (NewNetworkPolicyEvaluation). */
export function networkPolicyEvaluationRequest(
  source: string | undefined,
  destination: string | undefined,
): object {
  const src = source === undefined ? undefined : parsePeer(source);
  const dst = destination === undefined ? undefined : parsePeer(destination);
  if (src === undefined || dst === undefined) {
    throw new AntctlError(
      'ANTCTL_USAGE',
      'query networkpolicyevaluation needs both -S/--source and -D/--destination as <Namespace>/<Pod> (or <Pod> in Namespace default)',
    );
  }
  return {
    kind: 'NetworkPolicyEvaluation',
    apiVersion: 'controlplane.antrea.io/v1beta2',
    metadata: { creationTimestamp: null },
    request: { source: { pod: src }, destination: { pod: dst } },
  };
}

export interface EvaluationJson {
  response?: {
    networkPolicy?: NetworkPolicyReferenceJson;
    ruleIndex?: number;
    rule?: { direction?: string; action?: string };
  } | null;
}

const MAX_INT32 = 2147483647;

export function evaluationTable(ev: EvaluationJson): TableRows {
  const header = ['NAME', 'NAMESPACE', 'POLICY-TYPE', 'RULE-INDEX', 'DIRECTION', 'ACTION'];
  const r = ev.response;
  if (!r) return { header, rows: [header.map(() => '')], sortRows: false };
  // The synthetic isolation rule of K8s NetworkPolicies has no action and index MaxInt32.
  const action = r.rule?.action ?? (r.ruleIndex === MAX_INT32 ? 'Isolate' : 'Unknown');
  return {
    header,
    rows: [
      [
        r.networkPolicy?.name ?? '',
        r.networkPolicy?.namespace ?? '',
        r.networkPolicy?.type ?? '',
        String(r.ruleIndex ?? 0),
        r.rule?.direction ?? '',
        action,
      ],
    ],
    sortRows: false,
  };
}
