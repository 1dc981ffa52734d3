/** The file name the container runtime finds Antrea's network configuration list under. */
export const CNI_CONFLIST_NAME = '10-antrea.conflist';

/** A CNI network configuration list (the CNI spec's "conflist"). */
export interface CniConflist {
  cniVersion: string;
  name: string;
  plugins: Array<Record<string, unknown> & { type: string }>;
}

/**
 * The conflist Antrea installs on every Node (build/charts/antrea/conf/antrea.conflist): antrea with
 * host-local IPAM, then portmap (hostPort) and bandwidth (ingress/egress shaping) chained after it.
 * One definition for the agent, which installs it, and the lab, which plays the runtime reading it;
 * test/lab/manifests.test.ts keeps the deployment manifest's copy equal to it.
 */
export function antreaCniConflist(): CniConflist {
  return {
    cniVersion: '1.0.0',
    name: 'antrea',
    plugins: [
      { type: 'antrea', ipam: { type: 'host-local' } },
      { type: 'portmap', capabilities: { portMappings: true } },
      { type: 'bandwidth', capabilities: { bandwidth: true } },
    ],
  };
}
