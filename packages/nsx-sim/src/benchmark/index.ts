export * from './args.js';
export * from './report.js';
export * from './workload.js';
