import { CRD_KINDS } from '../kinds.js';
import { ageColumn, labelSelector } from './common.js';
import { defineCrd } from './define.js';
import {
  type CustomResourceDefinition,
  int,
  intRange,
  ipAddress,
  type JSONSchemaProps,
  obj,
  str,
  strEnum,
} from './openapi.js';

const named = (): JSONSchemaProps => obj({ name: str() }, { required: ['name'] });
const udpTunnel = (): JSONSchemaProps =>
  obj(
    { remoteIP: ipAddress(), vni: intRange(0, 16_777_215), destinationPort: intRange(1, 65_535) },
    { required: ['remoteIP'] },
  );
const greTunnel = (): JSONSchemaProps =>
  obj({ remoteIP: ipAddress(), key: intRange(0, 4_294_967_295) }, { required: ['remoteIP'] });
const erspanTunnel = (): JSONSchemaProps =>
  obj(
    {
      remoteIP: ipAddress(),
      sessionID: intRange(0, 1023),
      version: int({ enum: [1, 2] }),
      index: int(),
      dir: int({ enum: [0, 1] }),
      hardwareID: int(),
    },
    { required: ['remoteIP', 'version'] },
  );

/** A port with exactly one kind; ERSPAN only where packets leave (the target), as in Antrea. */
function trafficControlPort(withErspan: boolean): JSONSchemaProps {
  const kinds: Record<string, JSONSchemaProps> = {
    ovsInternal: named(),
    device: named(),
    geneve: udpTunnel(),
    vxlan: udpTunnel(),
    gre: greTunnel(),
    ...(withErspan ? { erspan: erspanTunnel() } : {}),
  };
  return obj(kinds, { oneOf: Object.keys(kinds).map((k) => ({ required: [k] })) });
}

export function trafficControlCrd(): CustomResourceDefinition {
  const selector = () => labelSelector({ checkMatchLabels: false });
  const spec = obj(
    {
      appliedTo: obj({ podSelector: selector(), namespaceSelector: selector() }),
      direction: strEnum(['Ingress', 'Egress', 'Both']),
      action: strEnum(['Mirror', 'Redirect']),
      targetPort: trafficControlPort(true),
      returnPort: trafficControlPort(false),
    },
    { required: ['appliedTo', 'direction', 'action', 'targetPort'] },
  );
  return defineCrd(CRD_KINDS.TrafficControl, {
    printerColumns: [
      {
        name: 'Direction',
        type: 'string',
        description: 'Specifies the direction of traffic that should be matched.',
        jsonPath: '.spec.direction',
      },
      {
        name: 'Action',
        type: 'string',
        description: 'Specifies the action that should be taken for the traffic.',
        jsonPath: '.spec.action',
      },
      ageColumn,
    ],
    statusSubresource: true,
    schema: { ...obj({ spec }), required: ['spec'] },
  });
}
