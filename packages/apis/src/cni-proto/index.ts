export * from './cni.js';
