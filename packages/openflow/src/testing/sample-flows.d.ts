import type { Flow } from '../codec/flow-mod.js';
/**
 * Flows covering every match field and action this package supports, each with the text
 * `ovs-ofctl -O OpenFlow15 dump-flows --no-stats` prints for it. Shared by unit tests (formatter,
 * round trips) and integration tests (install through our client, read back with ovs-ofctl).
 */
export interface SampleFlow {
  name: string;
  flow: Flow;
  text: string;
}
export declare const SAMPLE_FLOWS: SampleFlow[];
//# sourceMappingURL=sample-flows.d.ts.map
