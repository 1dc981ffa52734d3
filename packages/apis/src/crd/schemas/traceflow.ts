import { CRD_KINDS } from '../kinds.js';
import { ageColumn } from './common.js';
import { defineCrd } from './define.js';
import {
  arr,
  bool,
  type CustomResourceDefinition,
  int,
  intRange,
  ipAddress,
  type JSONSchemaProps,
  obj,
  str,
} from './openapi.js';

// The packet layout appears twice: what to inject (spec.packet) and what was captured
// (status.capturedPacket). Antrea's schema checks the same ranges in both.
const ipHeader = () => obj({ protocol: intRange(0, 255), ttl: intRange(0, 255), flags: intRange(0, 7) });
const ipv6Header = () => obj({ nextHeader: intRange(0, 65535), hopLimit: intRange(0, 65535) });
const transportHeader = () =>
  obj({
    icmp: obj({ id: intRange(0, 65535), sequence: intRange(0, 65535) }),
    udp: obj({ srcPort: intRange(1, 65535), dstPort: intRange(1, 65535) }),
    tcp: obj({ srcPort: intRange(1, 65535), dstPort: intRange(1, 65535), flags: intRange(0, 255) }),
  });

const spec = (): JSONSchemaProps =>
  obj({
    source: obj({ pod: str(), namespace: str(), ip: ipAddress() }),
    destination: obj({ pod: str(), service: str(), namespace: str(), ip: ipAddress() }),
    // Antrea's spec.packet has no srcIP/dstIP/length: those are only reported in capturedPacket.
    packet: obj({ ipHeader: ipHeader(), ipv6Header: ipv6Header(), transportHeader: transportHeader() }),
    liveTraffic: bool(),
    droppedOnly: bool(),
    timeout: intRange(1, 300),
  });

const status = (): JSONSchemaProps =>
  obj({
    reason: str(),
    dataplaneTag: int(),
    phase: str(),
    startTime: str(),
    results: arr(
      obj({
        node: str(),
        role: str(),
        timestamp: int(),
        observations: arr(
          obj({
            component: str(),
            componentInfo: str(),
            action: str(),
            pod: str(),
            dstMAC: str(),
            networkPolicy: str(),
            networkPolicyRule: str(),
            ttl: intRange(0, 255),
            translatedSrcIP: str(),
            translatedDstIP: str(),
            tunnelDstIP: str(),
            egressIP: str(),
            egress: str(),
            egressNode: str(),
            srcPodIP: str(),
          }),
        ),
      }),
    ),
    capturedPacket: obj({
      srcIP: str(),
      dstIP: str(),
      length: intRange(0, 65535),
      ipHeader: ipHeader(),
      ipv6Header: ipv6Header(),
      transportHeader: transportHeader(),
    }),
  });

export function traceflowCrd(): CustomResourceDefinition {
  const wide = 10;
  return defineCrd(CRD_KINDS.Traceflow, {
    printerColumns: [
      {
        name: 'Phase',
        type: 'string',
        description: 'The phase of the Traceflow.',
        jsonPath: '.status.phase',
      },
      {
        name: 'Source-Pod',
        type: 'string',
        description: 'The name of the source Pod.',
        jsonPath: '.spec.source.pod',
        priority: wide,
      },
      {
        name: 'Destination-Pod',
        type: 'string',
        description: 'The name of the destination Pod.',
        jsonPath: '.spec.destination.pod',
        priority: wide,
      },
      {
        name: 'Destination-IP',
        type: 'string',
        description: 'The IP address of the destination.',
        jsonPath: '.spec.destination.ip',
        priority: wide,
      },
      {
        name: 'Live-Traffic',
        type: 'boolean',
        description: 'Trace live traffic.',
        jsonPath: '.spec.liveTraffic',
        priority: wide,
      },
      {
        name: 'Dropped-Only',
        type: 'boolean',
        description: 'Capture only the dropped packet.',
        jsonPath: '.spec.droppedOnly',
        priority: wide,
      },
      {
        name: 'Timeout',
        type: 'integer',
        description: 'Timeout in seconds.',
        jsonPath: '.spec.timeout',
        priority: wide,
      },
      ageColumn,
    ],
    statusSubresource: true,
    schema: { ...obj({ spec: spec(), status: status() }), required: ['spec'] },
  });
}
