// The netpol-oracle/v1 case model after loading: fixture resolved, columns decided, every field
// the runner uses checked. Extra fields of the file (derivation, notes on actions, ...) are dropped.
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];

export type Labels = Record<string, string>;

export interface FixturePort {
  name?: string;
  port: number;
  protocol: Protocol;
}

export interface FixturePod {
  namespace: string;
  name: string;
  labels: Labels;
  /** The IPs the expectations were written with; the cluster assigns others (see ip-mapping.ts). */
  ips: string[];
  node?: string;
  ports: FixturePort[];
}

export interface FixtureNamespace {
  name: string;
  labels: Labels;
}

export interface Fixture {
  namespaces: FixtureNamespace[];
  pods: FixturePod[];
}

/** Any Kubernetes object: apiVersion, kind and metadata.name are checked, the rest is opaque. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels; [k: string]: unknown };
  [k: string]: unknown;
}

export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

export type Action =
  | { op: 'apply'; object: KubeObject }
  | { op: 'delete'; kind: string; namespace?: string; name: string }
  | { op: 'patch'; kind: string; namespace?: string; name: string; jsonPatch: JsonPatchOp[] }
  | { op: 'setLabels'; kind: 'Namespace' | 'Pod'; namespace?: string; name: string; labels: Labels }
  | { op: 'createPod'; pod: FixturePod }
  | { op: 'deletePod'; namespace: string; name: string }
  | { op: 'createNamespace'; namespace: FixtureNamespace }
  | { op: 'deleteNamespace'; name: string };

export type ProbeExpect = 'allow' | 'deny' | 'drop' | 'reject';

export interface MatrixExpectation {
  kind: 'matrix';
  port: number;
  protocol: Protocol;
  /** Destination pods, one per character of each row. */
  cols: string[];
  /** Source pod -> one of `.`, `X`, `-` per column, in file order. */
  rows: [string, string][];
}

export interface ProbeSpec {
  from: string;
  to: string;
  port: number;
  protocol: Protocol;
  expect: ProbeExpect;
  why?: string;
}

export interface ProbesExpectation {
  kind: 'probes';
  probes: ProbeSpec[];
}

export type Expectation = MatrixExpectation | ProbesExpectation;

export interface Step {
  name?: string;
  actions: Action[];
  expect: Expectation[];
}

export interface Case {
  /** Absolute path of the case file. */
  file: string;
  id: string;
  title: string;
  tags: string[];
  notes?: string;
  fixture: Fixture;
  /** Where the fixture came from: a file path, or "inline". */
  fixtureSource: string;
  /** Pods of the fixture that take part (the `pods` subset, or all), in column order. */
  pods: string[];
  steps: Step[];
}

export function podKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function splitPodKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
