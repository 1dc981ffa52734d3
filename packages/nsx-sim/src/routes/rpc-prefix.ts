/**
 * Adapter-side endpoints that stand in for NSX-RPC (proprietary protobuf over nsx-proxy on ports
 * 1234/1235). Not NSX REST: the simulator invents them, shaped after the public models.
 * `:clusterId` accepts the ClusterControlPlane id (cluster name) or its node_id (cluster UUID).
 */
export const RPC_PREFIX = '/rpc/v1/clusters/:clusterId';
