export * from './antrea-template.js';
export * from './codec/field-value.js';
export * from './codec/ip-address.js';
export * from './codec/message.js';
export * from './errors.js';
export * from './registry.js';
export * from './transport/collector.js';
export * from './transport/exporter.js';
