export * from './conflist.js';
