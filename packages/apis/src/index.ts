export * from './constants.js';
export * from './controlplane/index.js';
export * from './crd/index.js';
