// @antrea-ts/controller/testing: test support that other packages and the e2e suite use.
export * from './connectivity.js';
