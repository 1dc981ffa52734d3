export { FakeOpenFlowBridge } from './fake-bridge.js';
export { FakeSwitch } from './fake-switch.js';
export { SAMPLE_FLOWS, type SampleFlow } from './sample-flows.js';
