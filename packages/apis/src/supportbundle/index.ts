export * from './bundle-state.js';
export * from './pack.js';
export * from './redact.js';
export * from './tar.js';
