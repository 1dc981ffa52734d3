import { OvsdbMap, OvsdbSet, Uuid } from '@antrea-ts/ovsdb';
import { describe, expect, it } from 'vitest';
import { formatOvsShow, rowsJson, type TableRows } from './ovs-show.js';

const u = (n: number) => new Uuid(`00000000-0000-0000-0000-${String(n).padStart(12, '0')}`);

describe('formatOvsShow', () => {
  it('prints bridges, ports and interfaces as ovs-vsctl show does', () => {
    const rows: TableRows = {
      Open_vSwitch: [{ _uuid: u(1), bridges: new OvsdbSet([u(2)]), ovs_version: '3.1.0' }],
      Bridge: [{ _uuid: u(2), name: 'br-int', datapath_type: 'netdev', ports: new OvsdbSet([u(4), u(3)]) }],
      Port: [
        { _uuid: u(3), name: 'antrea-tun0', interfaces: u(5) },
        { _uuid: u(4), name: 'antrea-gw0', interfaces: u(6) },
      ],
      Interface: [
        {
          _uuid: u(5),
          name: 'antrea-tun0',
          type: 'geneve',
          options: new OvsdbMap([
            ['remote_ip', 'flow'],
            ['key', 'flow'],
          ]),
          error: new OvsdbSet([]),
        },
        { _uuid: u(6), name: 'antrea-gw0', type: 'internal', options: new OvsdbMap([]) },
      ],
    };
    expect(formatOvsShow(rows)).toBe(
      [
        '00000000-0000-0000-0000-000000000001',
        '    Bridge br-int',
        '        datapath_type: netdev',
        '        Port antrea-gw0',
        '            Interface antrea-gw0',
        '                type: internal',
        '        Port antrea-tun0',
        '            Interface antrea-tun0',
        '                type: geneve',
        '                options: {key=flow, remote_ip=flow}',
        '    ovs_version: "3.1.0"',
        '',
      ].join('\n'),
    );
    expect(rowsJson(rows)['Port']?.[0]).toEqual({
      _uuid: ['uuid', '00000000-0000-0000-0000-000000000003'],
      name: 'antrea-tun0',
      interfaces: ['uuid', '00000000-0000-0000-0000-000000000005'],
    });
  });
});
