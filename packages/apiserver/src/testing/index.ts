export { FakeAccessReviewer, FakeTokenReviewer } from './fakes.js';
