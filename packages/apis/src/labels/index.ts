export * from './errors.js';
export * from './selector.js';
