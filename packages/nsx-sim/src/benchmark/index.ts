export * from './report.js';
export * from './workload.js';
