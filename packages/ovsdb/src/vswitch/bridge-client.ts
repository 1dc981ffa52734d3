import type { Logger } from 'pino';
import type { OvsdbClient } from '../client.js';
import type { Condition, Operation } from '../codec/operations.js';
import { namedUuid, OvsdbSet, ovsMap, ovsSet, type Row, Uuid, uuid, type Value } from '../codec/value.js';
import { OvsdbError, OvsdbInterfaceError, OvsdbNotFoundError, OvsdbTimeoutError } from '../errors.js';
import {
  BRIDGE_COLUMNS,
  type BridgeRow,
  type FailMode,
  INTERFACE_COLUMNS,
  type InterfaceRow,
  type InterfaceType,
  type OpenFlowVersion,
  OVS_DB,
  PORT_COLUMNS,
  type PortRow,
  toBridgeRow,
  toInterfaceRow,
  toPortRow,
} from './schema.js';

export interface BridgeSettings {
  datapathType?: string;
  protocols?: readonly OpenFlowVersion[];
  /** undefined leaves it alone; null clears it. */
  failMode?: FailMode | null;
  otherConfig?: Readonly<Record<string, string>>;
  externalIds?: Readonly<Record<string, string>>;
}

export interface InterfaceSettings {
  type?: InterfaceType;
  /** e.g. { remote_ip: 'flow', key: 'flow' } for a flow-based tunnel, { dst_port: '6081' }. */
  options?: Readonly<Record<string, string>>;
  externalIds?: Readonly<Record<string, string>>;
  /** null clears the request. */
  ofportRequest?: number | null;
  mtuRequest?: number | null;
}

export interface PortSpec extends InterfaceSettings {
  name: string;
  /** Port external_ids; when absent the interface's `externalIds` are used for both rows. */
  portExternalIds?: Readonly<Record<string, string>>;
  /** Access VLAN. */
  tag?: number;
}

export interface PortInfo extends PortRow {
  /** The port's interfaces (one for everything Antrea creates). */
  interfaces: InterfaceRow[];
}

export interface AddedPort {
  portUuid: string;
  interfaceUuid: string;
}

/**
 * What agents depend on: implemented by OvsBridgeClient over OVSDB and by the in-memory
 * FakeBridgeClient (`@antrea-ts/ovsdb/testing`) for unit tests.
 */
export interface BridgeClient {
  ensureBridge(name: string, settings?: BridgeSettings): Promise<{ uuid: string; created: boolean }>;
  getBridge(name: string): Promise<BridgeRow | undefined>;
  updateBridge(name: string, settings: BridgeSettings): Promise<void>;
  deleteBridge(name: string): Promise<boolean>;
  addPort(bridge: string, spec: PortSpec): Promise<AddedPort>;
  deletePort(bridge: string, name: string): Promise<boolean>;
  listPorts(bridge: string): Promise<PortInfo[]>;
  getInterface(name: string): Promise<InterfaceRow | undefined>;
  updateInterface(name: string, settings: InterfaceSettings): Promise<void>;
  updatePortExternalIds(name: string, externalIds: Readonly<Record<string, string>>): Promise<void>;
  waitForOfport(name: string, timeoutMs?: number): Promise<number>;
  waitForVswitchd(timeoutMs?: number): Promise<void>;
}

export interface BridgeClientOptions {
  logger: Logger;
  /** Default bound for waitForOfport. */
  ofportTimeoutMs?: number;
}

const byName = (name: string): Condition[] => [['name', '==', name]];

/**
 * Bridge, port and interface management on the Open_vSwitch database, each change in one
 * transaction so ovs-vswitchd never sees half of it. The Antrea counterpart is
 * pkg/ovs/ovsconfig's OVSBridgeClient.
 */
export class OvsBridgeClient implements BridgeClient {
  private readonly log: Logger;
  private readonly ofportTimeoutMs: number;

  constructor(
    private readonly client: OvsdbClient,
    options: BridgeClientOptions,
  ) {
    this.log = options.logger.child({ component: 'ovs-bridge-client' });
    this.ofportTimeoutMs = options.ofportTimeoutMs ?? 10_000;
  }

  /**
   * Creates the bridge (with its local internal port, as ovs-vsctl add-br does) or brings the
   * given columns of an existing one up to date. Idempotent.
   */
  async ensureBridge(
    name: string,
    settings: BridgeSettings = {},
  ): Promise<{ uuid: string; created: boolean }> {
    const existing = await this.getBridge(name);
    const row = bridgeRow(settings);
    if (existing) {
      if (Object.keys(row).length > 0) {
        await this.client.transact(OVS_DB, [{ op: 'update', table: 'Bridge', where: byName(name), row }]);
      }
      return { uuid: existing.uuid, created: false };
    }
    const results = await this.client.transact(OVS_DB, [
      // Fails the transaction (instead of creating a duplicate) if another writer got there first.
      {
        op: 'wait',
        table: 'Bridge',
        where: byName(name),
        columns: ['name'],
        until: '==',
        rows: [],
        timeout: 0,
      },
      { op: 'insert', table: 'Interface', uuidName: 'iface', row: { name, type: 'internal' } },
      {
        op: 'insert',
        table: 'Port',
        uuidName: 'port',
        row: { name, interfaces: ovsSet(namedUuid('iface')) },
      },
      {
        op: 'insert',
        table: 'Bridge',
        uuidName: 'bridge',
        row: { ...row, name, ports: ovsSet(namedUuid('port')) },
      },
      {
        op: 'mutate',
        table: 'Open_vSwitch',
        where: [],
        mutations: [['bridges', 'insert', ovsSet(namedUuid('bridge'))]],
      },
      { op: 'comment', comment: `antrea-ts: create bridge ${name}` },
    ]);
    const created = results[3]?.uuid?.uuid ?? '';
    this.log.info({ bridge: name, uuid: created }, 'created bridge');
    return { uuid: created, created: true };
  }

  async getBridge(name: string): Promise<BridgeRow | undefined> {
    const [r] = await this.client.transact(OVS_DB, [
      { op: 'select', table: 'Bridge', where: byName(name), columns: ['_uuid', ...BRIDGE_COLUMNS] },
    ]);
    const row = r?.rows?.[0];
    return row ? toBridgeRow(row) : undefined;
  }

  async updateBridge(name: string, settings: BridgeSettings): Promise<void> {
    const [r] = await this.client.transact(OVS_DB, [
      { op: 'update', table: 'Bridge', where: byName(name), row: bridgeRow(settings) },
    ]);
    if (r?.count === 0) throw new OvsdbNotFoundError(`bridge ${name} not found`);
  }

  /** Removes the bridge; its ports and interfaces go with it (they are not root rows). */
  async deleteBridge(name: string): Promise<boolean> {
    const bridge = await this.getBridge(name);
    if (!bridge) return false;
    await this.client.transact(OVS_DB, [
      {
        op: 'mutate',
        table: 'Open_vSwitch',
        where: [],
        mutations: [['bridges', 'delete', ovsSet(uuid(bridge.uuid))]],
      },
      { op: 'comment', comment: `antrea-ts: delete bridge ${name}` },
    ]);
    this.log.info({ bridge: name }, 'deleted bridge');
    return true;
  }

  /** Adds a port with one interface to `bridge` in a single transaction. */
  async addPort(bridge: string, spec: PortSpec): Promise<AddedPort> {
    const ifaceRow: Row = { name: spec.name, ...interfaceRow(spec) };
    const portRow: Row = { name: spec.name, interfaces: ovsSet(namedUuid('iface')) };
    const portIds = spec.portExternalIds ?? spec.externalIds;
    if (portIds) portRow['external_ids'] = ovsMap(portIds);
    if (spec.tag !== undefined) portRow['tag'] = spec.tag;
    const ops: Operation[] = [
      // The bridge must exist, or the new rows would be garbage-collected and we would report success.
      {
        op: 'wait',
        table: 'Bridge',
        where: byName(bridge),
        columns: ['name'],
        until: '==',
        rows: [{ name: bridge }],
        timeout: 0,
      },
      { op: 'insert', table: 'Interface', uuidName: 'iface', row: ifaceRow },
      { op: 'insert', table: 'Port', uuidName: 'port', row: portRow },
      {
        op: 'mutate',
        table: 'Bridge',
        where: byName(bridge),
        mutations: [['ports', 'insert', ovsSet(namedUuid('port'))]],
      },
      { op: 'comment', comment: `antrea-ts: add port ${spec.name} to ${bridge}` },
    ];
    let results: Awaited<ReturnType<OvsdbClient['transact']>>;
    try {
      results = await this.client.transact(OVS_DB, ops);
    } catch (err) {
      if (
        OvsdbError.is(err) &&
        err.code === 'OVSDB_TXN_FAILED' &&
        (err as { opIndex?: number }).opIndex === 0
      ) {
        throw new OvsdbNotFoundError(`bridge ${bridge} not found`);
      }
      throw err;
    }
    const added = { interfaceUuid: results[1]?.uuid?.uuid ?? '', portUuid: results[2]?.uuid?.uuid ?? '' };
    this.log.debug({ bridge, port: spec.name, ...added }, 'added port');
    return added;
  }

  /** Removes a port (and its interfaces) from `bridge`; false if there was no such port. */
  async deletePort(bridge: string, name: string): Promise<boolean> {
    const [r] = await this.client.transact(OVS_DB, [
      { op: 'select', table: 'Port', where: byName(name), columns: ['_uuid'] },
    ]);
    const portUuid = r?.rows?.[0]?.['_uuid'];
    if (!(portUuid instanceof Uuid)) return false;
    const [m] = await this.client.transact(OVS_DB, [
      {
        op: 'mutate',
        table: 'Bridge',
        where: byName(bridge),
        mutations: [['ports', 'delete', ovsSet(portUuid)]],
      },
      { op: 'comment', comment: `antrea-ts: delete port ${name} from ${bridge}` },
    ]);
    if (m?.count === 0) throw new OvsdbNotFoundError(`bridge ${bridge} not found`);
    return true;
  }

  /** Every port on the bridge with its interfaces, in one round trip. */
  async listPorts(bridge: string): Promise<PortInfo[]> {
    const [b, p, i] = await this.client.transact(OVS_DB, [
      { op: 'select', table: 'Bridge', where: byName(bridge), columns: ['_uuid', 'ports'] },
      { op: 'select', table: 'Port', where: [], columns: ['_uuid', ...PORT_COLUMNS] },
      { op: 'select', table: 'Interface', where: [], columns: ['_uuid', ...INTERFACE_COLUMNS] },
    ]);
    const bridgeRow = b?.rows?.[0];
    if (!bridgeRow) throw new OvsdbNotFoundError(`bridge ${bridge} not found`);
    const onBridge = new Set(toBridgeRowPorts(bridgeRow));
    const interfaces = new Map((i?.rows ?? []).map((row) => [String(row['_uuid']), toInterfaceRow(row)]));
    return (p?.rows ?? [])
      .map(toPortRow)
      .filter((port) => onBridge.has(port.uuid))
      .map((port) => ({
        ...port,
        interfaces: port.interfaceUuids.flatMap((u) => {
          const iface = interfaces.get(u);
          return iface ? [iface] : [];
        }),
      }))
      .sort((a, b2) => a.name.localeCompare(b2.name));
  }

  async getInterface(name: string): Promise<InterfaceRow | undefined> {
    const [r] = await this.client.transact(OVS_DB, [
      { op: 'select', table: 'Interface', where: byName(name), columns: ['_uuid', ...INTERFACE_COLUMNS] },
    ]);
    const row = r?.rows?.[0];
    return row ? toInterfaceRow(row) : undefined;
  }

  async updateInterface(name: string, settings: InterfaceSettings): Promise<void> {
    const [r] = await this.client.transact(OVS_DB, [
      { op: 'update', table: 'Interface', where: byName(name), row: interfaceRow(settings) },
    ]);
    if (r?.count === 0) throw new OvsdbNotFoundError(`interface ${name} not found`);
  }

  async updatePortExternalIds(name: string, externalIds: Readonly<Record<string, string>>): Promise<void> {
    const [r] = await this.client.transact(OVS_DB, [
      { op: 'update', table: 'Port', where: byName(name), row: { external_ids: ovsMap(externalIds) } },
    ]);
    if (r?.count === 0) throw new OvsdbNotFoundError(`port ${name} not found`);
  }

  /**
   * Resolves once ovs-vswitchd has applied every change committed so far (the handshake
   * ovs-vsctl does): bump Open_vSwitch.next_cfg, then have the server hold a `wait` until
   * cur_cfg catches up. Rejects with OVSDB_TIMEOUT if ovs-vswitchd is not running.
   */
  async waitForVswitchd(timeoutMs = this.ofportTimeoutMs): Promise<void> {
    const [, selected] = await this.client.transact(OVS_DB, [
      { op: 'mutate', table: 'Open_vSwitch', where: [], mutations: [['next_cfg', '+=', 1]] },
      { op: 'select', table: 'Open_vSwitch', where: [], columns: ['next_cfg'] },
    ]);
    const target = selected?.rows?.[0]?.['next_cfg'];
    if (typeof target !== 'number') throw new OvsdbNotFoundError('Open_vSwitch row has no next_cfg');
    try {
      await this.client.transact(
        OVS_DB,
        [
          {
            op: 'wait',
            table: 'Open_vSwitch',
            // "No row still has cur_cfg below the target" is cur_cfg >= target for the single row.
            where: [['cur_cfg', '<', target]],
            columns: ['cur_cfg'],
            until: '==',
            rows: [],
            timeout: timeoutMs,
          },
        ],
        { timeoutMs: timeoutMs + 5_000 },
      );
    } catch (err) {
      if (OvsdbError.is(err) && err.code === 'OVSDB_TXN_FAILED') {
        throw new OvsdbTimeoutError(
          `ovs-vswitchd did not apply configuration ${target} within ${timeoutMs} ms`,
          {
            cause: err,
          },
        );
      }
      throw err;
    }
  }

  /**
   * The OpenFlow port number ovs-vswitchd assigned to an interface. The server holds a `wait`
   * operation until the ofport column is set (or `timeoutMs` passes), so this costs one round trip
   * and no polling. Rejects with OVSDB_INTERFACE_ERROR if ovs-vswitchd set ofport -1,
   * OVSDB_TIMEOUT if it never set it, OVSDB_NOT_FOUND if there is no such interface.
   */
  async waitForOfport(name: string, timeoutMs = this.ofportTimeoutMs): Promise<number> {
    let results: Awaited<ReturnType<OvsdbClient['transact']>>;
    try {
      results = await this.client.transact(
        OVS_DB,
        [
          {
            op: 'wait',
            table: 'Interface',
            where: byName(name),
            columns: ['ofport'],
            until: '!=',
            rows: [{ ofport: ovsSet() }],
            timeout: timeoutMs,
          },
          { op: 'select', table: 'Interface', where: byName(name), columns: ['_uuid', 'ofport', 'error'] },
        ],
        // The server answers by timeoutMs; leave room for the round trip itself.
        { timeoutMs: timeoutMs + 5_000 },
      );
    } catch (err) {
      if (
        OvsdbError.is(err) &&
        err.code === 'OVSDB_TXN_FAILED' &&
        (err as { opIndex?: number }).opIndex === 0
      ) {
        throw new OvsdbTimeoutError(`interface ${name} got no ofport within ${timeoutMs} ms`, { cause: err });
      }
      throw err;
    }
    const row = results[1]?.rows?.[0];
    if (!row) throw new OvsdbNotFoundError(`interface ${name} not found`);
    const iface = toInterfaceRow(row);
    if (iface.ofport === undefined || iface.ofport < 0) {
      throw new OvsdbInterfaceError(name, iface.error ?? 'ovs-vswitchd could not create it (ofport -1)');
    }
    return iface.ofport;
  }
}

function toBridgeRowPorts(row: Row): string[] {
  const ports = row['ports'];
  const items = ports instanceof OvsdbSet ? ports.items : ports === undefined ? [] : [ports];
  return items.map(String);
}

function bridgeRow(s: BridgeSettings): Row {
  const row: Row = {};
  if (s.datapathType !== undefined) row['datapath_type'] = s.datapathType;
  if (s.protocols !== undefined) row['protocols'] = ovsSet(...s.protocols);
  if (s.failMode !== undefined) row['fail_mode'] = s.failMode === null ? ovsSet() : s.failMode;
  if (s.otherConfig !== undefined) row['other_config'] = ovsMap(s.otherConfig);
  if (s.externalIds !== undefined) row['external_ids'] = ovsMap(s.externalIds);
  return row;
}

function interfaceRow(s: InterfaceSettings): Row {
  const row: Row = {};
  if (s.type !== undefined) row['type'] = s.type === 'system' ? '' : s.type;
  if (s.options !== undefined) row['options'] = ovsMap(s.options);
  if (s.externalIds !== undefined) row['external_ids'] = ovsMap(s.externalIds);
  if (s.ofportRequest !== undefined) row['ofport_request'] = optional(s.ofportRequest);
  if (s.mtuRequest !== undefined) row['mtu_request'] = optional(s.mtuRequest);
  return row;
}

const optional = (v: number | null): Value => (v === null ? ovsSet() : v);
