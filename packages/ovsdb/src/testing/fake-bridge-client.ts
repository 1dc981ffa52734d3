import { OvsdbInterfaceError, OvsdbNotFoundError, OvsdbTxnError } from '../errors.js';
import type {
  AddedPort,
  BridgeClient,
  BridgeSettings,
  InterfaceSettings,
  PortInfo,
  PortSpec,
} from '../vswitch/bridge-client.js';
import type { BridgeRow, InterfaceRow, PortRow } from '../vswitch/schema.js';

interface FakePort {
  bridge: string;
  port: PortRow;
  iface: InterfaceRow;
}

/**
 * In-memory BridgeClient with the behaviour agents rely on: unique names, ofport_request honoured,
 * other ofports allocated from 1 upwards, ports going away with their bridge. Deterministic UUIDs.
 * Set `interfaceErrors` to make an interface come up with ofport -1, as ovs-vswitchd does.
 */
export class FakeBridgeClient implements BridgeClient {
  readonly bridges = new Map<string, BridgeRow>();
  readonly ports = new Map<string, FakePort>();
  readonly interfaceErrors = new Map<string, string>();
  private nextUuid = 1;

  async ensureBridge(
    name: string,
    settings: BridgeSettings = {},
  ): Promise<{ uuid: string; created: boolean }> {
    const existing = this.bridges.get(name);
    if (existing) {
      await this.updateBridge(name, settings);
      return { uuid: existing.uuid, created: false };
    }
    const bridge: BridgeRow = {
      uuid: this.uuid(),
      name,
      datapathType: '',
      protocols: [],
      failMode: undefined,
      otherConfig: {},
      externalIds: {},
      portUuids: [],
    };
    this.bridges.set(name, bridge);
    await this.updateBridge(name, settings);
    await this.addPort(name, { name, type: 'internal' });
    return { uuid: bridge.uuid, created: true };
  }

  async getBridge(name: string): Promise<BridgeRow | undefined> {
    const b = this.bridges.get(name);
    return b ? structuredClone(b) : undefined;
  }

  async updateBridge(name: string, s: BridgeSettings): Promise<void> {
    const b = this.bridges.get(name);
    if (!b) throw new OvsdbNotFoundError(`bridge ${name} not found`);
    if (s.datapathType !== undefined) b.datapathType = s.datapathType;
    if (s.protocols !== undefined) b.protocols = [...s.protocols];
    if (s.failMode !== undefined) b.failMode = s.failMode ?? undefined;
    if (s.otherConfig !== undefined) b.otherConfig = { ...s.otherConfig };
    if (s.externalIds !== undefined) b.externalIds = { ...s.externalIds };
  }

  async deleteBridge(name: string): Promise<boolean> {
    if (!this.bridges.delete(name)) return false;
    for (const [portName, p] of this.ports) if (p.bridge === name) this.ports.delete(portName);
    return true;
  }

  async addPort(bridge: string, spec: PortSpec): Promise<AddedPort> {
    const b = this.bridges.get(bridge);
    if (!b) throw new OvsdbNotFoundError(`bridge ${bridge} not found`);
    if (this.ports.has(spec.name)) {
      throw new OvsdbTxnError(1, 'insert', 'constraint violation', `duplicate port name ${spec.name}`);
    }
    const error = this.interfaceErrors.get(spec.name);
    const iface: InterfaceRow = {
      uuid: this.uuid(),
      name: spec.name,
      type: spec.type === 'system' ? '' : (spec.type ?? ''),
      options: { ...spec.options },
      externalIds: { ...spec.externalIds },
      // A bridge's own internal port is OpenFlow LOCAL (0xfffe) in OVS.
      ofport: error
        ? -1
        : spec.name === bridge
          ? 65534
          : this.allocateOfport(spec.ofportRequest ?? undefined),
      ofportRequest: spec.ofportRequest ?? undefined,
      mtuRequest: spec.mtuRequest ?? undefined,
      mtu: spec.mtuRequest ?? undefined,
      error,
    };
    const port: PortRow = {
      uuid: this.uuid(),
      name: spec.name,
      interfaceUuids: [iface.uuid],
      externalIds: { ...(spec.portExternalIds ?? spec.externalIds) },
      tag: spec.tag,
    };
    this.ports.set(spec.name, { bridge, port, iface });
    b.portUuids.push(port.uuid);
    return { portUuid: port.uuid, interfaceUuid: iface.uuid };
  }

  async deletePort(bridge: string, name: string): Promise<boolean> {
    const p = this.ports.get(name);
    if (!p) return false;
    const b = this.bridges.get(bridge);
    if (!b) throw new OvsdbNotFoundError(`bridge ${bridge} not found`);
    if (p.bridge !== bridge) return false;
    this.ports.delete(name);
    b.portUuids = b.portUuids.filter((u) => u !== p.port.uuid);
    return true;
  }

  async listPorts(bridge: string): Promise<PortInfo[]> {
    if (!this.bridges.has(bridge)) throw new OvsdbNotFoundError(`bridge ${bridge} not found`);
    return [...this.ports.values()]
      .filter((p) => p.bridge === bridge)
      .map((p) => structuredClone({ ...p.port, interfaces: [p.iface] }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async getInterface(name: string): Promise<InterfaceRow | undefined> {
    const p = this.ports.get(name);
    return p ? structuredClone(p.iface) : undefined;
  }

  async updateInterface(name: string, s: InterfaceSettings): Promise<void> {
    const p = this.ports.get(name);
    if (!p) throw new OvsdbNotFoundError(`interface ${name} not found`);
    if (s.type !== undefined) p.iface.type = s.type === 'system' ? '' : s.type;
    if (s.options !== undefined) p.iface.options = { ...s.options };
    if (s.externalIds !== undefined) p.iface.externalIds = { ...s.externalIds };
    if (s.ofportRequest !== undefined) p.iface.ofportRequest = s.ofportRequest ?? undefined;
    if (s.mtuRequest !== undefined) p.iface.mtuRequest = s.mtuRequest ?? undefined;
  }

  async updatePortExternalIds(name: string, externalIds: Readonly<Record<string, string>>): Promise<void> {
    const p = this.ports.get(name);
    if (!p) throw new OvsdbNotFoundError(`port ${name} not found`);
    p.port.externalIds = { ...externalIds };
  }

  async waitForOfport(name: string): Promise<number> {
    const p = this.ports.get(name);
    if (!p) throw new OvsdbNotFoundError(`interface ${name} not found`);
    if (p.iface.ofport === undefined || p.iface.ofport < 0) {
      throw new OvsdbInterfaceError(name, p.iface.error ?? 'ofport -1');
    }
    return p.iface.ofport;
  }

  async waitForVswitchd(): Promise<void> {}

  private allocateOfport(requested: number | undefined): number {
    const used = new Set([...this.ports.values()].map((p) => p.iface.ofport));
    if (requested !== undefined && !used.has(requested)) return requested;
    let n = 1;
    while (used.has(n)) n++;
    return n;
  }

  private uuid(): string {
    return `00000000-0000-4000-8000-${(this.nextUuid++).toString(16).padStart(12, '0')}`;
  }
}
