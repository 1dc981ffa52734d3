import { CRD_KINDS } from '../kinds.js';
import { BUNDLE_AUTH_TYPES, DEFAULT_BUNDLE_EXPIRATION_MINUTES } from '../support-bundle-collection.js';
import { conditions, labelSelector } from './common.js';
import { defineCrd } from './define.js';
import { arr, type CustomResourceDefinition, int, obj, str, strEnum } from './openapi.js';

export function supportBundleCollectionCrd(): CustomResourceDefinition {
  const nodeSelector = () => labelSelector({ checkMatchLabels: false });
  const spec = obj(
    {
      nodes: obj({ nodeNames: arr(str()), nodeSelector: nodeSelector() }),
      externalNodes: obj(
        { namespace: str(), nodeNames: arr(str()), nodeSelector: nodeSelector() },
        { required: ['namespace'] },
      ),
      expirationMinutes: int({ default: DEFAULT_BUNDLE_EXPIRATION_MINUTES }),
      sinceTime: str({ format: 'duration' }),
      fileServer: obj({ url: str(), hostPublicKey: str({ format: 'byte' }) }),
      authentication: obj({
        authType: strEnum(BUNDLE_AUTH_TYPES),
        authSecret: obj({ name: str(), namespace: str() }),
      }),
    },
    {
      required: ['fileServer', 'authentication'],
      // A collection must target Nodes, ExternalNodes or both.
      anyOf: [{ required: ['nodes'] }, { required: ['externalNodes'] }],
    },
  );
  return defineCrd(CRD_KINDS.SupportBundleCollection, {
    statusSubresource: true,
    schema: obj({
      spec,
      status: obj({ collectedNodes: int(), desiredNodes: int(), conditions: conditions() }),
    }),
  });
}
