import type { AntreaControllerInfo } from '@antrea-ts/apis';
import { ApiException, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { ControllerInfoClient } from './controller-info.js';

const G = { group: 'crd.antrea.io', version: 'v1beta1', plural: 'antreacontrollerinfos' } as const;

/** ControllerInfoClient over the AntreaControllerInfo CRD. */
export class KubeControllerInfoClient implements ControllerInfoClient {
  readonly #api: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.#api = kc.makeApiClient(CustomObjectsApi);
  }

  async get(name: string): Promise<AntreaControllerInfo | undefined> {
    try {
      return (await this.#api.getClusterCustomObject({ ...G, name })) as AntreaControllerInfo;
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw err;
    }
  }

  async create(info: AntreaControllerInfo): Promise<void> {
    await this.#api.createClusterCustomObject({ ...G, body: info });
  }

  async replace(info: AntreaControllerInfo): Promise<void> {
    await this.#api.replaceClusterCustomObject({ ...G, name: info.metadata?.name ?? '', body: info });
  }
}
