import { forEachLimit } from '../clock.js';
import { NsxRequestError } from '../errors.js';
import type { CcpChannel, RealizationReport } from './channels.js';
import { ccpObjectPath, POLICY_API } from './channels.js';
import { listAll, type NsxTransport } from './client.js';
import type {
  NsxContainerClusterSpan,
  NsxGroup,
  NsxSecurityPolicy,
  NsxService,
  PolicyFeed,
} from './types.js';

function paths(list: readonly string[] | undefined): string[] {
  return (list ?? []).filter((s) => s.startsWith('/'));
}

/**
 * CcpChannel.getFeed over the public Policy API only, so the CCP adapter can read a real NSX
 * Manager: security policies of a domain (paged, rules embedded), their container-cluster-span
 * children filtered by this cluster's ClusterControlPlane path, then every referenced group
 * (following PathExpressions) and service (following nested services). The Policy API has no change
 * notification, so there is no generation: the adapter polls. Realization reports have no public
 * API; they go to `realization` (the simulator's stand-in channel), when given.
 */
export class PolicyApiCcpChannel implements CcpChannel {
  private readonly clusterPath: string;

  constructor(
    private readonly t: NsxTransport,
    clusterName: string,
    private readonly realization?: Pick<CcpChannel, 'reportRealization'>,
    private readonly domain = 'default',
    private readonly concurrency = 8,
  ) {
    this.clusterPath = ccpObjectPath(clusterName);
  }

  async getFeed(opts: { signal?: AbortSignal } = {}): Promise<PolicyFeed> {
    const signal = opts.signal ? { signal: opts.signal } : {};
    const base = `${POLICY_API}/infra/domains/${encodeURIComponent(this.domain)}/security-policies`;
    const all = await listAll<NsxSecurityPolicy>(this.t, base, signal);
    const spanned: NsxSecurityPolicy[] = [];
    const failures = await forEachLimit(all, this.concurrency, async (p) => {
      const spans = await listAll<NsxContainerClusterSpan>(
        this.t,
        `${base}/${encodeURIComponent(p.id)}/container-cluster-span`,
        signal,
      );
      if (!spans.some((s) => s.container_cluster_path === this.clusterPath)) return;
      // Lists may omit embedded rules (real NSX does); read the policy itself when they are missing.
      const full = p.rules
        ? p
        : await this.t.request<NsxSecurityPolicy>(
            'GET',
            `${base}/${encodeURIComponent(p.id)}`,
            undefined,
            signal,
          );
      spanned.push({ ...full, container_cluster_span: spans });
    });
    if (failures[0]) throw failures[0].error;
    spanned.sort((a, b) => (a.sequence_number ?? 0) - (b.sequence_number ?? 0) || a.id.localeCompare(b.id));

    const groups = await this.closure<NsxGroup>(
      spanned.flatMap((p) => [
        ...paths(p.scope),
        ...(p.rules ?? []).flatMap((r) => [
          ...paths(r.source_groups),
          ...paths(r.destination_groups),
          ...paths(r.scope),
        ]),
      ]),
      (g) =>
        (g.expression ?? []).flatMap((e) =>
          e.resource_type === 'PathExpression' && Array.isArray(e['paths']) ? (e['paths'] as string[]) : [],
        ),
    );
    const services = await this.closure<NsxService>(
      spanned.flatMap((p) => (p.rules ?? []).flatMap((r) => paths(r.services))),
      (s) => (s.service_entries ?? []).flatMap((e) => (e.nested_service_path ? [e.nested_service_path] : [])),
    );
    return { container_cluster_path: this.clusterPath, security_policies: spanned, groups, services };
  }

  /** Reads every object at `start` and, transitively, what `refs` points at; missing ones are skipped. */
  private async closure<T extends { path: string }>(start: string[], refs: (o: T) => string[]): Promise<T[]> {
    const seen = new Set<string>();
    const out: T[] = [];
    let frontier = [...new Set(start)];
    while (frontier.length > 0) {
      const next: string[] = [];
      for (const p of frontier) seen.add(p);
      const failures = await forEachLimit(frontier, this.concurrency, async (p) => {
        try {
          const o = await this.t.request<T>('GET', `${POLICY_API}${p}`);
          out.push(o);
          for (const r of refs(o)) if (!seen.has(r)) next.push(r);
        } catch (err) {
          // A dangling reference becomes a translation error for the policies using it.
          if (!(err instanceof NsxRequestError) || err.code !== 'NSX_NOT_FOUND') throw err;
        }
      });
      if (failures[0]) throw failures[0].error;
      frontier = [...new Set(next)];
    }
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  async reportRealization(results: RealizationReport[]): Promise<void> {
    await this.realization?.reportRealization(results);
  }
}
