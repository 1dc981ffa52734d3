export * from './codec.js';
