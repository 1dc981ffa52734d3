import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1NodeList,
} from '@kubernetes/client-node';
import { NodeIpamError } from './errors.js';
import type { NodeClient } from './node-ipam-controller.js';

/** NodeClient over the kube-apiserver: list, and a merge patch of spec.podCIDR(s). */
export class KubeNodeClient implements NodeClient {
  readonly #api: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(CoreV1Api);
  }

  async list(): Promise<V1Node[]> {
    return (await this.listRaw()).items;
  }

  /** The NodeList itself (what an informer's list function returns). */
  listRaw(): Promise<V1NodeList> {
    return this.#api.listNode();
  }

  async setPodCIDRs(name: string, cidrs: string[]): Promise<void> {
    try {
      await this.#api.patchNode(
        { name, body: { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (err) {
      throw new NodeIpamError('CONTROLLER_NODEIPAM_UPDATE_FAILED', `cannot set podCIDRs of Node ${name}`, {
        cause: err,
      });
    }
  }
}
