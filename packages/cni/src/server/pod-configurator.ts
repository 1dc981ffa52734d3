import type { CniCmdArgs } from '../codec/cni-messages.js';
import type { K8sCniArgs } from './k8s-args.js';

/** One validated CNI request as the agent's Pod plumbing sees it. */
export interface CniRequest {
  readonly command: 'ADD' | 'CHECK' | 'DEL';
  readonly args: CniCmdArgs;
  /** The parsed network configuration (ipam, mtu, prevResult, runtimeConfig, ...). */
  readonly netConf: Readonly<Record<string, unknown>>;
  readonly cniVersion: string;
  readonly k8s: K8sCniArgs;
  /** The lock key: the Pod's infra (sandbox) container, else the container id. */
  readonly containerKey: string;
  /** Aborted when the plugin gives up (deadline) or disconnects. */
  readonly signal: AbortSignal;
}

/**
 * The interface plumbing behind the CNI server: veth, IPAM, OVS port and Pod flows. Throw a CniError
 * to choose the CNI code (e.g. IPAM_FAILURE); any other error becomes CONFIG_INTERFACE_FAILURE for
 * ADD/DEL and CHECK_INTERFACE_FAILURE for CHECK, as in Antrea's cniserver.
 */
export interface PodConfigurator {
  /** Returns the CNI result for the request's cniVersion (object, JSON-encoded by the server, or bytes). */
  add(req: CniRequest): Promise<object | Uint8Array>;
  check(req: CniRequest): Promise<void>;
  /** Must succeed when the interface or state is already gone (DEL is idempotent). */
  del(req: CniRequest): Promise<void>;
}
