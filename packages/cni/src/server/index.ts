export * from './service-definition.js';
