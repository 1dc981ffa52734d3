// The plugin's public surface. Only modules cheap to load belong here: the antrea-cni binary imports
// this for every Pod event. Transports load lazily (plugin/socket-agent-connector.ts); the fake agent
// and the agent-side server live behind the ./testing and ./server subpath exports.
export * from './client/agent-client.js';
export * from './codec/cni-messages.js';
export * from './codec/grpc-frame.js';
export * from './errors.js';
export * from './plugin/netns.js';
export * from './plugin/run-plugin.js';
export * from './plugin/socket-agent-connector.js';
export * from './spec/env.js';
export * from './spec/error-codes.js';
export * from './spec/net-conf.js';
export * from './spec/versions.js';
export type { UnaryTransport } from './transport/unary-transport.js';
