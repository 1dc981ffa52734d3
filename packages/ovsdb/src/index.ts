export * from './codec/frame-parser.js';
export * from './codec/jsonrpc.js';
export * from './codec/monitor.js';
export * from './codec/operations.js';
export * from './codec/schema.js';
export * from './codec/value.js';
export * from './errors.js';
