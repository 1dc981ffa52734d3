import { Option } from 'commander';
import type { ApiRequest } from '../client/api-client.js';
import { getJson } from '../client/connections.js';
import type { Route } from '../client/failures.js';
import type { RunContext } from '../context.js';
import { type OutputFormat, parseOutputFormat } from '../output/format.js';

export const CONTROLPLANE = '/apis/controlplane.antrea.io/v1beta2';
export const SYSTEM = '/apis/system.antrea.io/v1beta1';
export const STATS = '/apis/stats.antrea.io/v1alpha1';
export const CRD = '/apis/crd.antrea.io/v1beta1';

/** The APIService through which the Kubernetes API serves a controller path. */
export function apiServiceFor(path: string): string {
  if (path.startsWith(SYSTEM)) return 'v1beta1.system.antrea.io';
  if (path.startsWith(STATS)) return 'v1alpha1.stats.antrea.io';
  return 'v1beta2.controlplane.antrea.io';
}

/** `-o` as Antrea defines it: table by default for get/query, yaml for the flat commands. */
export function outputOption(defaultFormat: OutputFormat): Option {
  return new Option('-o, --output <format>', 'output format: json|table|yaml|raw')
    .default(defaultFormat)
    .argParser(parseOutputFormat);
}

/** GET (or POST) one controller resource path, through the aggregator or the controller itself. */
export async function controllerJson<T>(
  ctx: RunContext,
  req: ApiRequest,
  subject: string,
  name?: string,
): Promise<T> {
  const { client, route } = await ctx.conn.controller();
  const r: Route =
    route.kind === 'aggregated' ? { kind: 'aggregated', apiService: apiServiceFor(req.path) } : route;
  return getJson<T>(client, req, {
    route: r,
    target: client.target,
    subject,
    ...(name === undefined ? {} : { name }),
  });
}

/** GET a non-resource path on the controller's own API server. */
export async function controllerDirectJson<T>(ctx: RunContext, req: ApiRequest, subject: string): Promise<T> {
  const client = await ctx.conn.controllerDirect();
  return getJson<T>(client, req, { route: { kind: 'controller' }, target: client.target, subject });
}

export async function agentJson<T>(
  ctx: RunContext,
  req: ApiRequest,
  subject: string,
  name?: string,
): Promise<T> {
  const client = await ctx.conn.agent();
  return getJson<T>(client, req, {
    route: { kind: 'agent' },
    target: client.target,
    subject,
    ...(name === undefined ? {} : { name }),
  });
}

export async function kubeJson<T>(
  ctx: RunContext,
  req: ApiRequest,
  subject: string,
  name?: string,
): Promise<T> {
  const client = await ctx.conn.kube();
  return getJson<T>(client, req, {
    route: { kind: 'kube' },
    target: client.target,
    subject,
    ...(name === undefined ? {} : { name }),
  });
}

/** A list response may be a bare array (agent handlers) or a List object with items. */
export function itemsOf<T>(v: unknown): T[] {
  if (Array.isArray(v)) return v as T[];
  const items = (v as { items?: T[] | null } | null)?.items;
  return items ?? [];
}

/** Turns "ns/pod" into its parts; Antrea's agent wants namespace and pod as separate parameters. */
export function splitNamespaced(value: string): { namespace?: string; name: string } {
  const i = value.indexOf('/');
  return i < 0 ? { name: value } : { namespace: value.slice(0, i), name: value.slice(i + 1) };
}
