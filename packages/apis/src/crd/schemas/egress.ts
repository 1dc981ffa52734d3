import { CRD_KINDS } from '../kinds.js';
import { ageColumn, conditions, labelSelector } from './common.js';
import { defineCrd } from './define.js';
import {
  arr,
  type CustomResourceDefinition,
  cidr,
  int,
  intRange,
  ipAddress,
  type JSONSchemaProps,
  obj,
  str,
} from './openapi.js';

const anyOfRequired = (...names: string[]): JSONSchemaProps => ({
  anyOf: names.map((n) => ({ required: [n] })),
});

export function egressCrd(): CustomResourceDefinition {
  const spec = obj(
    {
      appliedTo: obj({ podSelector: labelSelector(), namespaceSelector: labelSelector() }),
      egressIP: ipAddress(),
      // An empty string stands for "allocate from the pool at the same index".
      egressIPs: arr({ type: 'string', oneOf: [{ maxLength: 0 }, { format: 'ipv4' }, { format: 'ipv6' }] }),
      externalIPPool: str(),
      externalIPPools: arr(str()),
      bandwidth: obj({ rate: str(), burst: str() }, { required: ['rate', 'burst'] }),
    },
    {
      required: ['appliedTo'],
      // The single-IP form or the dual-stack list form, never both.
      oneOf: [anyOfRequired('egressIP', 'externalIPPool'), anyOfRequired('egressIPs', 'externalIPPools')],
    },
  );
  return defineCrd(CRD_KINDS.Egress, {
    printerColumns: [
      {
        name: 'EgressIP',
        type: 'string',
        description: 'The effective SNAT IP address for the selected workloads.',
        jsonPath: '.status.egressIP',
      },
      ageColumn,
      {
        name: 'Node',
        type: 'string',
        description: 'The Owner Node of egress IP',
        jsonPath: '.status.egressNode',
      },
    ],
    statusSubresource: true,
    olderVersions: [{ name: 'v1alpha2' }],
    schema: {
      ...obj({
        spec,
        status: obj({ egressNode: str(), egressIP: str(), conditions: conditions() }),
      }),
      required: ['spec'],
    },
  });
}

export function externalIPPoolCrd(): CustomResourceDefinition {
  const ipRange = obj(
    { cidr: cidr(), start: ipAddress(), end: ipAddress() },
    { oneOf: [{ required: ['cidr'] }, { required: ['start', 'end'] }] },
  );
  const spec = obj(
    {
      ipRanges: arr(ipRange),
      subnetInfo: obj(
        { gateway: ipAddress(), prefixLength: intRange(1, 127), vlan: intRange(0, 4094) },
        { required: ['gateway', 'prefixLength'] },
      ),
      nodeSelector: labelSelector(),
    },
    { required: ['ipRanges', 'nodeSelector'] },
  );
  return defineCrd(CRD_KINDS.ExternalIPPool, {
    printerColumns: [
      {
        name: 'Total',
        type: 'integer',
        description: 'The number of total IPs',
        jsonPath: '.status.usage.total',
      },
      {
        name: 'Used',
        type: 'integer',
        description: 'The number of allocated IPs',
        jsonPath: '.status.usage.used',
      },
      ageColumn,
    ],
    statusSubresource: true,
    olderVersions: [
      {
        name: 'v1alpha2',
        deprecationWarning:
          'crd.antrea.io/v1alpha2 ExternalIPPool is deprecated; use crd.antrea.io/v1beta1 ExternalIPPool',
      },
    ],
    schema: {
      ...obj({ spec, status: obj({ usage: obj({ total: int(), used: int() }) }) }),
      required: ['spec'],
    },
  });
}
