import { CRD_KINDS } from '../kinds.js';
import { objectReference } from './common.js';
import { defineCrd } from './define.js';
import {
  arr,
  type CustomResourceDefinition,
  int,
  intRange,
  type JSONSchemaProps,
  obj,
  str,
  strEnum,
} from './openapi.js';

// AntreaAgentInfo / AntreaControllerInfo keep their fields at the top level of the object (no
// spec or status) and have no status subresource: the owner rewrites the whole object.

const int32 = () => int({ format: 'int32' });

const heartbeatConditions = (types: string[]): JSONSchemaProps =>
  arr(
    obj(
      {
        lastHeartbeatTime: str({ format: 'date-time' }),
        status: strEnum(['True', 'False', 'Unknown']),
        type: strEnum(types),
        reason: str(),
        message: str(),
      },
      { required: ['type', 'status', 'lastHeartbeatTime'] },
    ),
  );

const networkPolicyControllerInfo = () =>
  obj({ networkPolicyNum: int32(), addressGroupNum: int32(), appliedToGroupNum: int32() });

const healthColumns = (conditionsField: string, healthyType: string, who: string) =>
  [
    {
      name: 'Healthy',
      type: 'string',
      description: `Health status of ${who}`,
      jsonPath: `.${conditionsField}[?(@.type=='${healthyType}')].status`,
    },
    {
      name: 'Last Heartbeat',
      type: 'date',
      description: 'Last time the Healthy Condition was updated',
      jsonPath: `.${conditionsField}[?(@.type=='${healthyType}')].lastHeartbeatTime`,
    },
  ] as const;

export function antreaControllerInfoCrd(): CustomResourceDefinition {
  return defineCrd(CRD_KINDS.AntreaControllerInfo, {
    schema: obj({
      version: str(),
      controllerConditions: heartbeatConditions(['ControllerHealthy']),
      serviceRef: objectReference(),
      networkPolicyControllerInfo: networkPolicyControllerInfo(),
      apiPort: intRange(1, 65535),
      connectedAgentNum: int32(),
      podRef: objectReference(),
      nodeRef: objectReference(),
    }),
    printerColumns: [
      ...healthColumns('controllerConditions', 'ControllerHealthy', 'the Controller'),
      {
        name: 'Version',
        type: 'string',
        description: 'Version of the Controller',
        jsonPath: '.version',
        priority: 1,
      },
      {
        name: 'Connected Agents',
        type: 'integer',
        description: 'Number of Agents connected to the Controller',
        jsonPath: '.connectedAgentNum',
        priority: 1,
      },
      {
        name: 'Node',
        type: 'string',
        description: 'Node on which the Controller is running',
        jsonPath: '.nodeRef.name',
        priority: 1,
      },
      {
        name: 'Num Network Policies',
        type: 'integer',
        description: 'Number of Network Policies computed by Controller',
        jsonPath: '.networkPolicyControllerInfo.networkPolicyNum',
        priority: 2,
      },
    ],
  });
}

export function antreaAgentInfoCrd(): CustomResourceDefinition {
  return defineCrd(CRD_KINDS.AntreaAgentInfo, {
    schema: obj({
      version: str(),
      agentConditions: heartbeatConditions([
        'AgentHealthy',
        'ControllerConnectionUp',
        'OVSDBConnectionUp',
        'OpenflowConnectionUp',
      ]),
      localPodNum: int32(),
      nodePortLocalPortRange: str(),
      nodeSubnets: arr(str()),
      apiCABundle: str({ format: 'byte' }),
      ovsInfo: obj({
        version: str(),
        bridgeName: str(),
        flowTable: { type: 'object', additionalProperties: int32() },
      }),
      networkPolicyControllerInfo: networkPolicyControllerInfo(),
      apiPort: intRange(1, 65535),
      podRef: objectReference(),
      nodeRef: objectReference(),
      networkInfo: obj({
        transportInterface: str(),
        transportInterfaceMTU: int({ format: 'int32', minimum: 0 }),
        podMTU: int({ format: 'int32', minimum: 0 }),
        // At most one address per IP family.
        transportInterfaceIPs: arr(str(), { maxItems: 2 }),
      }),
    }),
    printerColumns: [
      ...healthColumns('agentConditions', 'AgentHealthy', 'this Agent'),
      {
        name: 'Version',
        type: 'string',
        description: 'Version of this Agent',
        jsonPath: '.version',
        priority: 1,
      },
      {
        name: 'Node',
        type: 'string',
        description: 'Node on which this Agent is running',
        jsonPath: '.nodeRef.name',
        priority: 1,
      },
      {
        name: 'Num Pods',
        type: 'integer',
        description: 'Number of local Pods managed by this Agent',
        jsonPath: '.localPodNum',
        priority: 2,
      },
      {
        name: 'Subnets',
        type: 'string',
        description: 'Subnets used by this Agent for Pod IPAM',
        jsonPath: '.nodeSubnets',
        priority: 2,
      },
    ],
  });
}
