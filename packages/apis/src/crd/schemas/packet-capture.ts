import { CRD_KINDS } from '../kinds.js';
import {
  PACKET_CAPTURE_DIRECTIONS,
  PACKET_CAPTURE_POINTS,
  PACKET_CAPTURE_TIMEOUT,
} from '../packet-capture.js';
import { ageColumn, conditions } from './common.js';
import { defineCrd } from './define.js';
import {
  arr,
  type CustomResourceDefinition,
  int,
  intOrString,
  intRange,
  ipAddress,
  type JSONSchemaProps,
  obj,
  type PrinterColumn,
  str,
  strEnum,
} from './openapi.js';

/** sftp://host:port[/path], host a name, an IPv4 address or a bracketed IPv6 one; the port is required, as in Antrea. */
export const PACKET_CAPTURE_SFTP_URL_PATTERN = '^sftp://([A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\]):[0-9]+(/.*)?$';

const has = (path: string) => {
  // has() of a nested field fails when a parent is absent: test each level.
  const parts = path.split('.');
  return parts.map((_, i) => `has(self.${parts.slice(0, i + 1).join('.')})`).join(' && ');
};

/** A Pod or an address, never both. */
const peer = (): JSONSchemaProps =>
  obj(
    {
      pod: obj({ namespace: str({ default: 'default' }), name: str() }, { required: ['name'] }),
      ip: ipAddress(),
    },
    {
      'x-kubernetes-validations': [
        { rule: '!(has(self.pod) && has(self.ip))', message: 'set pod or ip, not both' },
      ],
    },
  );

const port = () => intRange(1, 65535);
const byte = () => intRange(0, 255);
const icmpMessages = () =>
  obj({ messages: arr(obj({ type: intOrString(), code: byte() }, { required: ['type'] })) });

function packet(): JSONSchemaProps {
  return obj({
    ipFamily: { ...strEnum(['IPv4', 'IPv6']), default: 'IPv4' },
    protocol: intOrString(),
    transportHeader: obj(
      {
        udp: obj({ srcPort: port(), dstPort: port() }),
        tcp: obj({
          srcPort: port(),
          dstPort: port(),
          flags: arr(obj({ value: byte(), mask: byte() }, { required: ['value'] })),
        }),
        icmp: icmpMessages(),
        icmpv6: icmpMessages(),
      },
      {
        'x-kubernetes-validations': [
          {
            rule:
              ['tcp', 'udp', 'icmp', 'icmpv6'].map((h) => `(has(self.${h}) ? 1 : 0)`).join(' + ') + ' <= 1',
            message: 'set at most one of tcp, udp, icmp and icmpv6',
          },
        ],
      },
    ),
  });
}

const printerColumns: PrinterColumn[] = [
  { name: 'Source-Pod', type: 'string', jsonPath: '.spec.source.pod', priority: 10 },
  { name: 'Destination-Pod', type: 'string', jsonPath: '.spec.destination.pod', priority: 10 },
  { name: 'Source-IP', type: 'string', jsonPath: '.spec.source.ip', priority: 10 },
  { name: 'Destination-IP', type: 'string', jsonPath: '.spec.destination.ip', priority: 10 },
  { name: 'Timeout', type: 'integer', jsonPath: '.spec.timeout', priority: 10 },
  ageColumn,
  { name: 'Captured-Packets', type: 'integer', jsonPath: '.status.numberCaptured' },
  {
    name: 'Started',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="PacketCaptureStarted")].status',
  },
  {
    name: 'Complete',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="PacketCaptureComplete")].status',
  },
  {
    name: 'Uploaded',
    type: 'string',
    jsonPath: '.status.conditions[?(@.type=="PacketCaptureFileUploaded")].status',
    priority: 10,
  },
];

export function packetCaptureCrd(): CustomResourceDefinition {
  const spec = obj(
    {
      source: peer(),
      destination: peer(),
      packet: packet(),
      direction: { ...strEnum(PACKET_CAPTURE_DIRECTIONS), default: 'SourceToDestination' },
      capturePoint: strEnum(PACKET_CAPTURE_POINTS),
      timeout: {
        ...intRange(PACKET_CAPTURE_TIMEOUT.min, PACKET_CAPTURE_TIMEOUT.max),
        default: PACKET_CAPTURE_TIMEOUT.default,
      },
      captureConfig: obj(
        { firstN: obj({ number: int({ format: 'int32', minimum: 1 }) }, { required: ['number'] }) },
        { required: ['firstN'] },
      ),
      fileServer: obj(
        { url: str({ pattern: PACKET_CAPTURE_SFTP_URL_PATTERN }), hostPublicKey: str({ format: 'byte' }) },
        { required: ['url'] },
      ),
    },
    {
      required: ['captureConfig'],
      'x-kubernetes-validations': [
        {
          rule: `(${has('source.pod')}) || (${has('destination.pod')})`,
          message: 'set source.pod or destination.pod: the capture runs on the Node of one of them',
        },
        {
          rule: `!(has(self.capturePoint) && self.capturePoint == 'Source') || (${has('source.pod')})`,
          message: "capturePoint 'Source' needs source.pod",
        },
        {
          rule: `!(has(self.capturePoint) && self.capturePoint == 'Destination') || (${has('destination.pod')})`,
          message: "capturePoint 'Destination' needs destination.pod",
        },
      ],
    },
  );
  return defineCrd(CRD_KINDS.PacketCapture, {
    statusSubresource: true,
    printerColumns,
    schema: obj(
      {
        spec,
        status: obj({ numberCaptured: int(), filePath: str(), conditions: conditions() }),
      },
      { required: ['spec'] },
    ),
  });
}
