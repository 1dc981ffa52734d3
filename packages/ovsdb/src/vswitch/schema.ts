import { mapToRecord, optionalAtom, type Row, setItems, Uuid } from '../codec/value.js';
import { OvsdbProtocolError } from '../errors.js';

/**
 * The Open_vSwitch database columns Antrea-TS reads or writes (vswitch.ovsschema 8.x), and
 * nothing more: other columns keep their defaults or whatever another tool set.
 */

export const OVS_DB = 'Open_vSwitch';

export const BRIDGE_COLUMNS = [
  'name',
  'datapath_type',
  'protocols',
  'fail_mode',
  'other_config',
  'external_ids',
  'ports',
];
export const PORT_COLUMNS = ['name', 'interfaces', 'external_ids', 'tag'];
export const INTERFACE_COLUMNS = [
  'name',
  'type',
  'options',
  'external_ids',
  'ofport',
  'ofport_request',
  'mtu_request',
  'mtu',
  'error',
];

export type OpenFlowVersion =
  | 'OpenFlow10'
  | 'OpenFlow11'
  | 'OpenFlow12'
  | 'OpenFlow13'
  | 'OpenFlow14'
  | 'OpenFlow15';
export type FailMode = 'secure' | 'standalone';
/** '' (same as 'system') is a kernel or veth device; tunnel types take `options`. */
export type InterfaceType =
  | ''
  | 'system'
  | 'internal'
  | 'geneve'
  | 'vxlan'
  | 'gre'
  | 'stt'
  | 'patch'
  | (string & {});

export interface BridgeRow {
  uuid: string;
  name: string;
  datapathType: string;
  protocols: OpenFlowVersion[];
  failMode: FailMode | undefined;
  otherConfig: Record<string, string>;
  externalIds: Record<string, string>;
  portUuids: string[];
}

export interface PortRow {
  uuid: string;
  name: string;
  interfaceUuids: string[];
  externalIds: Record<string, string>;
  tag: number | undefined;
}

export interface InterfaceRow {
  uuid: string;
  name: string;
  type: string;
  options: Record<string, string>;
  externalIds: Record<string, string>;
  /** Assigned by ovs-vswitchd after the transaction; -1 when the interface could not be created. */
  ofport: number | undefined;
  ofportRequest: number | undefined;
  mtuRequest: number | undefined;
  mtu: number | undefined;
  error: string | undefined;
}

function rowUuid(row: Row): string {
  const u = row['_uuid'];
  if (!(u instanceof Uuid)) throw new OvsdbProtocolError('row has no _uuid');
  return u.uuid;
}

const str = (row: Row, column: string): string => {
  const v = row[column];
  return typeof v === 'string' ? v : '';
};
const optInt = (row: Row, column: string): number | undefined => {
  const v = optionalAtom(row[column]);
  return typeof v === 'number' ? v : undefined;
};
const optStr = (row: Row, column: string): string | undefined => {
  const v = optionalAtom(row[column]);
  return typeof v === 'string' ? v : undefined;
};
const uuids = (row: Row, column: string): string[] =>
  setItems(row[column]).flatMap((a) => (a instanceof Uuid ? [a.uuid] : []));

export function toBridgeRow(row: Row): BridgeRow {
  return {
    uuid: rowUuid(row),
    name: str(row, 'name'),
    datapathType: str(row, 'datapath_type'),
    protocols: setItems(row['protocols']).map(String) as OpenFlowVersion[],
    failMode: optStr(row, 'fail_mode') as FailMode | undefined,
    otherConfig: mapToRecord(row['other_config']),
    externalIds: mapToRecord(row['external_ids']),
    portUuids: uuids(row, 'ports'),
  };
}

export function toPortRow(row: Row): PortRow {
  return {
    uuid: rowUuid(row),
    name: str(row, 'name'),
    interfaceUuids: uuids(row, 'interfaces'),
    externalIds: mapToRecord(row['external_ids']),
    tag: optInt(row, 'tag'),
  };
}

export function toInterfaceRow(row: Row): InterfaceRow {
  return {
    uuid: rowUuid(row),
    name: str(row, 'name'),
    type: str(row, 'type'),
    options: mapToRecord(row['options']),
    externalIds: mapToRecord(row['external_ids']),
    ofport: optInt(row, 'ofport'),
    ofportRequest: optInt(row, 'ofport_request'),
    mtuRequest: optInt(row, 'mtu_request'),
    mtu: optInt(row, 'mtu'),
    error: optStr(row, 'error'),
  };
}
