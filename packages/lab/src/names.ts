// Names Antrea users know, as the lab installs them (docs/architecture.md); from @antrea-ts/apis.
import {
  AGENT_API_PORT,
  ANTREA_NAMESPACE,
  CONTROLLER_API_PORT,
  CONTROLPLANE_APISERVICE_NAME,
} from '@antrea-ts/apis';

export const ANTREA_NAMESPACE_NAME = ANTREA_NAMESPACE;
export const CONTROLLER_SERVICE = 'antrea';
export const CONTROLPLANE_APISERVICE = CONTROLPLANE_APISERVICE_NAME;
export { AGENT_API_PORT, CONTROLLER_API_PORT };
/** antrea-controller's web dashboard, on the host IP of the lab (each lab instance has its own). */
export const CONTROLLER_DASHBOARD_PORT = 10352;
