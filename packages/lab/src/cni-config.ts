/**
 * The CNI conflist a Node's runtime reads, as Antrea's agent init container installs it
 * (build/charts/antrea/conf/antrea.conflist): antrea with host-local IPAM, then portmap and
 * bandwidth chained after it.
 */
export interface CniConflist {
  cniVersion: string;
  name: string;
  plugins: Array<Record<string, unknown> & { type: string }>;
}

export function cniConflist(): CniConflist {
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
