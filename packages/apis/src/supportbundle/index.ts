export * from './bundle-state.js';
export * from './log-ring.js';
export * from './pack.js';
export * from './plain-json.js';
export * from './process-report.js';
export * from './redact.js';
export * from './since.js';
export * from './tar.js';
