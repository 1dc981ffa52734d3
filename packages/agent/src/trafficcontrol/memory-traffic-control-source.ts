import type { Labels, TrafficControl } from '@antrea-ts/apis';
import type { LabeledPod, TrafficControlSource } from './traffic-control-source.js';

/**
 * A TrafficControlSource held in memory, for callers that feed TrafficControls themselves (tests,
 * benchmarks): `set()` replaces the TrafficControls or Pods and tells the controller at once.
 */
export class MemoryTrafficControlSource implements TrafficControlSource {
  #tcs: TrafficControl[] = [];
  #pods: LabeledPod[] = [];
  #changed: () => void = () => undefined;

  constructor(private readonly labelsOfNamespace: (namespace: string) => Labels | undefined = () => ({})) {}

  async start(changed: () => void): Promise<void> {
    this.#changed = changed;
  }

  async stop(): Promise<void> {}

  set(state: { trafficControls?: TrafficControl[]; pods?: LabeledPod[] }): void {
    if (state.trafficControls) this.#tcs = state.trafficControls;
    if (state.pods) this.#pods = state.pods;
    this.#changed();
  }

  trafficControls(): TrafficControl[] {
    return [...this.#tcs];
  }

  pods(): LabeledPod[] {
    return [...this.#pods];
  }

  namespaceLabels(namespace: string): Labels | undefined {
    return this.labelsOfNamespace(namespace);
  }
}
