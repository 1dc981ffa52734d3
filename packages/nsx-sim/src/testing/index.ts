export * from './loopback-sim.js';
