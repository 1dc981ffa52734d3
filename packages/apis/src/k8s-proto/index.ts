export * from './envelope.js';
export * from './errors.js';
export * from './watch.js';
