export { type ApiClient, type ApiRequest, type ApiResponse, HttpApiClient } from './client/api-client.js';
export {
  CONTROLLER_APISERVICE,
  type ConnectionEnv,
  type Connections,
  createConnections,
  DEFAULT_AGENT_ADDRESS,
} from './client/connections.js';
export { type AntctlDeps, type OutputSink, parseDuration } from './context.js';
export { ANTCTL_ERROR_CODES, AntctlError, type AntctlErrorCode } from './errors.js';
export { type AntctlMode, decideMode, type ModeDecision } from './mode.js';
export { buildProgram, runAntctl } from './program.js';
export { ANTCTL_VERSION } from './version.js';
