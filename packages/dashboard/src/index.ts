export * from './cluster-reader.js';
export * from './dashboard.js';
export * from './errors.js';
export * from './health.js';
export * from './policy-filter.js';
export * from './policy-rows.js';
export * from './traceflow-form.js';
