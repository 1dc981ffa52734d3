export * from './group-member.js';
export * from './ip.js';
export * from './types.js';
