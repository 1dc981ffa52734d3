export * from './args.js';
export * from './workload.js';
