import { describe, expect, it } from 'vitest';
import { intervalsToCidrs, ipBlockIntervals, isEverything, netInterval } from './ip-set.js';
import { portRangeMasks } from './port-range.js';

const net = (s: string) => {
  const [ip, len] = s.split('/');
  return { ip: Uint8Array.from(ip!.split('.').map(Number)), prefixLength: Number(len) };
};
const ip = (s: string): [number, number] => {
  const i = netInterval(net(`${s}/32`))!;
  return [i[0], i[1]];
};

describe('ip sets', () => {
  it('collapses adjacent addresses into the fewest CIDRs', () => {
    const addrs = ['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.5', '10.0.0.4', '10.1.0.9'].map(
      ip,
    );
    expect(intervalsToCidrs(addrs)).toEqual(['10.0.0.0/30', '10.0.0.4/31', '10.1.0.9/32']);
  });

  it('expands ipBlock excepts into the remaining CIDRs', () => {
    const block = { cidr: net('10.0.0.0/24'), except: [net('10.0.0.128/25'), net('10.0.0.0/26')] };
    expect(intervalsToCidrs(ipBlockIntervals(block))).toEqual(['10.0.0.64/26']);
    const hole = { cidr: net('192.168.0.0/16'), except: [net('192.168.1.1/32')] };
    expect(intervalsToCidrs(ipBlockIntervals(hole))).toEqual([
      '192.168.0.0/24',
      '192.168.1.0/32',
      '192.168.1.2/31',
      '192.168.1.4/30',
      '192.168.1.8/29',
      '192.168.1.16/28',
      '192.168.1.32/27',
      '192.168.1.64/26',
      '192.168.1.128/25',
      '192.168.2.0/23',
      '192.168.4.0/22',
      '192.168.8.0/21',
      '192.168.16.0/20',
      '192.168.32.0/19',
      '192.168.64.0/18',
      '192.168.128.0/17',
    ]);
  });

  it('reads the 16-byte IPv4-mapped form and recognizes "everything"', () => {
    const mapped = new Uint8Array(16);
    mapped[10] = 0xff;
    mapped[11] = 0xff;
    const all = netInterval({ ip: mapped, prefixLength: 0 })!;
    expect(isEverything([all])).toBe(true);
    expect(intervalsToCidrs([all])).toEqual(['0.0.0.0/0']);
    expect(netInterval({ ip: new Uint8Array(16), prefixLength: 0 })).toBeUndefined();
    mapped.set([10, 1, 2, 3], 12);
    expect(intervalsToCidrs([netInterval({ ip: mapped, prefixLength: 24 })!])).toEqual(['10.1.2.0/24']);
  });
});

describe('port ranges', () => {
  it('become aligned masked blocks', () => {
    expect(portRangeMasks(80, 80)).toEqual([{ value: 80, mask: 0xffff }]);
    expect(portRangeMasks(1000, 1999).map((m) => `${m.value}/0x${m.mask.toString(16)}`)).toEqual([
      '1000/0xfff8',
      '1008/0xfff0',
      '1024/0xfe00',
      '1536/0xff00',
      '1792/0xff80',
      '1920/0xffc0',
      '1984/0xfff0',
    ]);
    expect(portRangeMasks(0, 65535)).toEqual([{ value: 0, mask: 0 }]);
  });
});
