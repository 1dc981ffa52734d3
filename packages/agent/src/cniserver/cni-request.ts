import { AntreaErrorCode, CniError } from '@antrea-ts/cni';
import type { CniRequest } from '@antrea-ts/cni/server';
import { AgentError } from '../errors.js';
import type { PodInterface } from './interface-store.js';
import type { PodRequest } from './pod-configurator.js';

/** CNI config versions the agent produces results for (0.1.0/0.2.0 results have another shape). */
export const AGENT_CNI_VERSIONS: readonly string[] = ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'];

/** The Pod plumbing's view of a validated CNI request. */
export function podRequest(req: CniRequest): PodRequest {
  return {
    containerId: req.args.containerId,
    netns: req.args.netns,
    ifName: req.args.ifname,
    podName: req.k8s.podName,
    podNamespace: req.k8s.podNamespace,
  };
}

/** Rejects IPAM configurations the agent cannot honour (it always uses host-local over the podCIDR). */
export function checkIpamConfig(netConf: Readonly<Record<string, unknown>>): void {
  const ipam = netConf['ipam'] as { type?: unknown } | undefined;
  if (ipam && ipam.type !== undefined && ipam.type !== 'host-local') {
    throw new CniError(AntreaErrorCode.UNSUPPORTED_FIELD, `unsupported IPAM type ${String(ipam.type)}`);
  }
}

/** The CNI result for a configured Pod, in the shape of the request's cniVersion. */
export function cniAddResult(cniVersion: string, pod: PodInterface, gateway: string): object {
  const legacy = cniVersion.startsWith('0.');
  return {
    cniVersion,
    interfaces: [
      { name: pod.hostIfName, mac: pod.hostMac ?? '' },
      { name: pod.ifName, mac: pod.mac, sandbox: pod.netns },
    ],
    ips: [{ ...(legacy ? { version: '4' } : {}), interface: 1, address: pod.ipCidr, gateway }],
    routes: [{ dst: '0.0.0.0/0', gw: gateway }],
    dns: {},
  };
}

/** Antrea ErrorCode for an agent failure, as a CniError the CNI server reports unchanged. */
export function toCniError(err: unknown): unknown {
  if (!AgentError.is(err)) return err;
  switch (err.code) {
    case 'AGENT_IPAM_FAILED':
      return new CniError(AntreaErrorCode.IPAM_FAILURE, err.message, '', { cause: err });
    case 'AGENT_CHECK_FAILED':
      return new CniError(AntreaErrorCode.CHECK_INTERFACE_FAILURE, err.message, '', { cause: err });
    case 'AGENT_STOPPED':
      return new CniError(AntreaErrorCode.TRY_AGAIN_LATER, err.message, '', { cause: err });
    default:
      return new CniError(AntreaErrorCode.CONFIG_INTERFACE_FAILURE, err.message, '', { cause: err });
  }
}
