export * from './cni-server.js';
export * from './k8s-args.js';
export * from './keyed-serializer.js';
export type * from './pod-configurator.js';
export * from './service-definition.js';
