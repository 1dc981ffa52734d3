/** The Kubernetes identity kubelet's runtime passes in CNI_ARGS (libcni's K8sArgs). */
export interface K8sCniArgs {
  readonly podName: string;
  readonly podNamespace: string;
  readonly podInfraContainerId: string;
  readonly podUid: string;
}

const KNOWN = new Set([
  'IgnoreUnknown',
  'K8S_POD_NAME',
  'K8S_POD_NAMESPACE',
  'K8S_POD_INFRA_CONTAINER_ID',
  'K8S_POD_UID',
]);

/**
 * Parses CNI_ARGS ("K=V;K2=V2") as libcni's types.LoadArgs does into K8sArgs: a pair without "=" is an
 * error, and so is an unknown key unless IgnoreUnknown is 1/true (runtimes always set it).
 */
export function parseK8sCniArgs(args: string): K8sCniArgs {
  const pairs = new Map<string, string>();
  if (args !== '') {
    for (const pair of args.split(';')) {
      const i = pair.indexOf('=');
      if (i <= 0) throw new Error(`ARGS: invalid pair "${pair}"`);
      pairs.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
  const ignore = ['1', 'true'].includes((pairs.get('IgnoreUnknown') ?? '').toLowerCase());
  if (!ignore) {
    for (const k of pairs.keys()) {
      if (!KNOWN.has(k)) throw new Error(`ARGS: unknown args ["${k}"]`);
    }
  }
  return {
    podName: pairs.get('K8S_POD_NAME') ?? '',
    podNamespace: pairs.get('K8S_POD_NAMESPACE') ?? '',
    podInfraContainerId: pairs.get('K8S_POD_INFRA_CONTAINER_ID') ?? '',
    podUid: pairs.get('K8S_POD_UID') ?? '',
  };
}
