export * from './constants.js';
export * from './controlplane/index.js';
