export { type CapturedDeps, captureDeps, FakeApiClient, fakeConnections, type Handler } from './fakes.js';
export * from './fixtures.js';
