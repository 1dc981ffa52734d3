export * from './crds.js';
export * from './types.js';
