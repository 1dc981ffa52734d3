import { CRD_KINDS } from '../kinds.js';
import { PORT_PROTOCOLS } from '../network-policy.js';
import { defineCrd } from './define.js';
import { arr, type CustomResourceDefinition, intOrString, ipAddress, obj, str, strEnum } from './openapi.js';

export function externalEntityCrd(): CustomResourceDefinition {
  return defineCrd(CRD_KINDS.ExternalEntity, {
    schema: obj({
      spec: obj({
        endpoints: arr(obj({ ip: ipAddress(), name: str() })),
        ports: arr(obj({ protocol: strEnum(PORT_PROTOCOLS), port: intOrString(), name: str() })),
        externalNode: str(),
      }),
    }),
  });
}
