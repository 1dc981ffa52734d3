// Names and numbers that Antrea users already rely on; every component takes them from here.
export const BRIDGE_NAME = 'br-int';
export const GATEWAY_PORT_NAME = 'antrea-gw0';
export const TUNNEL_PORT_NAME = 'antrea-tun0';
export const CONTROLLER_API_PORT = 10349;
export const AGENT_API_PORT = 10350;
export const CNI_SOCKET_PATH = '/var/run/antrea/cni.sock';
/** Where Antrea's API servers write the loopback token antctl in the same Pod presents (Antrea's TokenPath). */
export const LOOPBACK_TOKEN_PATH = '/var/run/antrea/apiserver/loopback-client-token';
export const CA_CONFIGMAP_NAME = 'antrea-ca';
export const ANTREA_NAMESPACE = 'kube-system';
export const CONTROLPLANE_APISERVICE_NAME = 'v1beta2.controlplane.antrea.io';
export const CRD_GROUP = 'crd.antrea.io';
/** Conntrack zone used for all Pod traffic on br-int. */
export const CT_ZONE = 65520;
/** Service annotation naming the ExternalIPPool a LoadBalancer Service's IP comes from (ServiceExternalIP). */
export const SERVICE_EXTERNAL_IP_POOL_ANNOTATION = 'service.antrea.io/external-ip-pool';
