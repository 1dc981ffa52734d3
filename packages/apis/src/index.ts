export * from './cni-conf/index.js';
export * from './cni-proto/index.js';
export * from './constants.js';
export * from './controlplane/index.js';
export * from './controlplane-proto/index.js';
export * from './crd/index.js';
export * from './k8s-proto/index.js';
export * from './supportbundle/index.js';
