import { CRD_KINDS } from '../kinds.js';
import { ageColumn } from './common.js';
import { defineCrd } from './define.js';
import { type CustomResourceDefinition, intRange, obj, str } from './openapi.js';

export function tierCrd(): CustomResourceDefinition {
  return defineCrd(CRD_KINDS.Tier, {
    printerColumns: [
      {
        name: 'Priority',
        type: 'integer',
        description: 'The Priority of this Tier relative to other Tiers.',
        jsonPath: '.spec.priority',
      },
      ageColumn,
    ],
    schema: obj({
      spec: obj({ priority: intRange(0, 255), description: str() }, { required: ['priority'] }),
    }),
  });
}
