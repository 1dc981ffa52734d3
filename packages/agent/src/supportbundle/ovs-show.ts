// `ovs-vsctl show` from OVSDB rows: the switch, its bridges, ports and interfaces with their
// type, options and errors; read with one select per table over the raw OVSDB client.
import type { OvsdbClient, Row } from '@antrea-ts/ovsdb';
import { encodeRow, OvsdbMap, OvsdbSet, Uuid, type Value } from '@antrea-ts/ovsdb';

export const OVS_TABLES = ['Open_vSwitch', 'Bridge', 'Port', 'Interface'] as const;

export type TableRows = Record<string, Row[]>;

/** Every row of every table of the Open_vSwitch database: `ovsdb-client dump` as JSON. */
export async function dumpOvsdb(ovsdb: OvsdbClient): Promise<TableRows> {
  const schema = await ovsdb.getSchema('Open_vSwitch');
  const names = Object.keys(schema.tables).sort();
  const results = await ovsdb.transact(
    'Open_vSwitch',
    names.map((table) => ({ op: 'select' as const, table, where: [] })),
  );
  const out: TableRows = {};
  names.forEach((name, i) => {
    out[name] = (results[i] as { rows?: Row[] }).rows ?? [];
  });
  return out;
}

function atomText(v: unknown): string {
  if (v instanceof Uuid) return v.uuid;
  if (typeof v === 'string') return /^[\w.:/-]+$/.test(v) ? v : JSON.stringify(v);
  return String(v);
}

/** A value as ovs-vsctl prints it: sets in [], maps in {} sorted by key. */
export function valueText(v: Value | undefined): string {
  if (v === undefined) return '[]';
  if (v instanceof OvsdbSet)
    return v.items.length === 1 ? atomText(v.items[0]) : `[${v.items.map(atomText).join(', ')}]`;
  if (v instanceof OvsdbMap) {
    const entries = v.entries.map(([k, val]) => `${atomText(k)}=${atomText(val)}`).sort();
    return `{${entries.join(', ')}}`;
  }
  return atomText(v);
}

function uuids(v: Value | undefined): string[] {
  if (v instanceof Uuid) return [v.uuid];
  if (v instanceof OvsdbSet) return v.items.filter((i): i is Uuid => i instanceof Uuid).map((i) => i.uuid);
  return [];
}

function empty(v: Value | undefined): boolean {
  return (
    v === undefined ||
    v === '' ||
    (v instanceof OvsdbSet && v.items.length === 0) ||
    (v instanceof OvsdbMap && v.entries.length === 0)
  );
}

/** The text of `ovs-vsctl show` for a dump. */
export function formatOvsShow(rows: TableRows): string {
  const byUuid = (table: string) =>
    new Map((rows[table] ?? []).map((r) => [(r['_uuid'] as Uuid | undefined)?.uuid ?? '', r]));
  const bridges = byUuid('Bridge');
  const ports = byUuid('Port');
  const ifaces = byUuid('Interface');
  /** The rows a reference column points to, by name, as ovs-vsctl orders them. */
  const referenced = (table: Map<string, Row>, column: Value | undefined) =>
    uuids(column)
      .map((u) => table.get(u))
      .filter((r): r is Row => !!r)
      .sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
  let out = '';
  for (const ovs of rows['Open_vSwitch'] ?? []) {
    out += `${(ovs['_uuid'] as Uuid | undefined)?.uuid ?? ''}\n`;
    for (const b of referenced(bridges, ovs['bridges'])) {
      out += `    Bridge ${atomText(b['name'])}\n`;
      if (!empty(b['datapath_type'])) out += `        datapath_type: ${valueText(b['datapath_type'])}\n`;
      for (const p of referenced(ports, b['ports'])) {
        out += `        Port ${atomText(p['name'])}\n`;
        for (const i of uuids(p['interfaces'])) {
          const row = ifaces.get(i);
          if (!row) continue;
          out += `            Interface ${atomText(row['name'])}\n`;
          for (const col of ['type', 'options', 'error'] as const) {
            if (!empty(row[col])) out += `                ${col}: ${valueText(row[col])}\n`;
          }
        }
      }
    }
    if (!empty(ovs['ovs_version']))
      out += `    ovs_version: ${JSON.stringify(valueText(ovs['ovs_version']))}\n`;
  }
  return out;
}

/** Rows as OVSDB wire JSON (RFC 7047 notation), for the dump file. */
export function rowsJson(rows: TableRows): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(rows).map(([t, list]) => [t, list.map((r) => encodeRow(r))]));
}
