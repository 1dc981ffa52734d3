export { EXPECTED_BRIDGE_OBSERVATIONS, observeBridgeClient } from './bridge-client-contract.js';
export { FakeBridgeClient } from './fake-bridge-client.js';
export { type ScriptedReply, type ScriptedRequest, ScriptedServer } from './scripted-server.js';
