import { cniServiceDefinition as apisCniServiceDefinition, CNI_METHODS } from '@antrea-ts/apis';
import type { ServiceDefinition } from '@grpc/grpc-js';
import type { CniRpcMethod } from '../codec/cni-messages.js';

export const CNI_RPC_METHODS: readonly CniRpcMethod[] = CNI_METHODS;

/**
 * service Cni for @grpc/grpc-js, on the apis package's protobufjs codec. The agent side (and the fake
 * agent) use the shared contract; only the plugin binary carries its own small codec, for start-up
 * cost, so every plugin test against a server also checks the two codecs agree on the wire.
 */
export function cniServiceDefinition(methods: readonly CniRpcMethod[] = CNI_RPC_METHODS): ServiceDefinition {
  const all = apisCniServiceDefinition();
  const def: Record<string, ServiceDefinition[string]> = {};
  for (const m of methods) def[m] = all[m];
  return def as ServiceDefinition;
}
