import { CRD_KINDS } from '../kinds.js';
import { conditions, labelSelector } from './common.js';
import { defineCrd } from './define.js';
import { arr, type CustomResourceDefinition, cidr, type JSONSchemaProps, obj, str } from './openapi.js';

const ipBlocks = () => arr(obj({ cidr: cidr(), except: arr(cidr()) }));
const serviceReference = () => obj({ name: str(), namespace: str() });
const status = () => obj({ conditions: conditions() });

export function clusterGroupCrd(): CustomResourceDefinition {
  const spec: JSONSchemaProps = obj({
    childGroups: arr(str()),
    podSelector: labelSelector(),
    namespaceSelector: labelSelector(),
    nodeSelector: labelSelector(),
    externalEntitySelector: labelSelector(),
    ipBlocks: ipBlocks(),
    serviceReference: serviceReference(),
  });
  return defineCrd(CRD_KINDS.ClusterGroup, {
    statusSubresource: true,
    schema: obj({ spec, status: status() }),
  });
}

export function groupCrd(): CustomResourceDefinition {
  // Antrea's Group schema has no nodeSelector and does not check label values, unlike
  // ClusterGroup's; reproduced as is so the same objects are accepted.
  const loose = () => labelSelector({ checkValues: false, checkMatchLabels: false });
  const spec: JSONSchemaProps = obj({
    childGroups: arr(str()),
    podSelector: loose(),
    namespaceSelector: loose(),
    externalEntitySelector: loose(),
    ipBlocks: ipBlocks(),
    serviceReference: serviceReference(),
  });
  return defineCrd(CRD_KINDS.Group, { statusSubresource: true, schema: obj({ spec, status: status() }) });
}
