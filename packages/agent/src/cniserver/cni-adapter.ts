import type { PodConfigurator as CniPodConfigurator, CniRequest } from '@antrea-ts/cni/server';
import { checkIpamConfig, cniAddResult, podRequest, toCniError } from './cni-request.js';
import type { PodConfigurator } from './pod-configurator.js';

/**
 * Plugs the agent's Pod plumbing into @antrea-ts/cni's CniServer (which owns the socket, request
 * validation and per-container serialization): maps requests in, results and error codes out.
 */
export class CniPodAdapter implements CniPodConfigurator {
  constructor(
    private readonly pods: PodConfigurator,
    private readonly gatewayIp: string,
    private readonly observe?: (command: string, seconds: number, ok: boolean) => void,
  ) {}

  add(req: CniRequest): Promise<object> {
    return this.timed(req, async () => {
      checkIpamConfig(req.netConf);
      const pod = await this.pods.add(podRequest(req));
      return cniAddResult(req.cniVersion, pod, this.gatewayIp);
    });
  }

  check(req: CniRequest): Promise<void> {
    return this.timed(req, () => this.pods.check(podRequest(req)));
  }

  del(req: CniRequest): Promise<void> {
    return this.timed(req, () => this.pods.del(podRequest(req)));
  }

  private async timed<T>(req: CniRequest, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let ok = false;
    try {
      const r = await fn();
      ok = true;
      return r;
    } catch (err) {
      throw toCniError(err);
    } finally {
      this.observe?.(req.command, (performance.now() - started) / 1000, ok);
    }
  }
}
