import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  type ConntrackCounts,
  ConntrackMetrics,
  parseCtStatsTotal,
  parseMaxConns,
  readConntrack,
} from './conntrack-metrics.js';

const logger = pino({ level: 'silent' });

describe('conntrack readings', () => {
  it('parses ovs-appctl dpctl/ct-stats-show and dpctl/ct-get-maxconns output', () => {
    expect(parseCtStatsTotal('Connections Stats:\n    Total: 17\n  TCP: 9\n  UDP: 6\n  ICMP: 2\n')).toBe(17);
    expect(parseCtStatsTotal('Connections Stats:\n    Total: 0\n')).toBe(0);
    expect(() => parseCtStatsTotal('ovs-vswitchd: no datapath')).toThrow(/no Total/);
    expect(parseMaxConns('3000000\n')).toBe(3_000_000);
    expect(() => parseMaxConns('')).toThrow();
  });

  it('asks ovs-vswitchd for all zones, Antrea zone 65520 and the limit', async () => {
    const asked: string[] = [];
    const counts = await readConntrack(async (args) => {
      asked.push(args.join(' '));
      if (args[0] === 'dpctl/ct-get-maxconns') return '1000\n';
      return `Connections Stats:\n    Total: ${args[1] === 'zone=65520' ? 4 : 9}\n`;
    });
    expect(counts).toEqual({ total: 9, antrea: 4, max: 1000 });
    expect(asked.sort()).toEqual([
      'dpctl/ct-get-maxconns',
      'dpctl/ct-stats-show',
      'dpctl/ct-stats-show zone=65520',
    ]);
  });
});

describe('ConntrackMetrics', () => {
  it('reads at scrape time, at most once per cacheMs, and keeps the last values when a reading fails', async () => {
    let t = 0;
    let reads = 0;
    let next: ConntrackCounts | Error = { total: 5, antrea: 3, max: 100 };
    const registry = new Registry();
    new ConntrackMetrics({
      registry,
      logger,
      cacheMs: 2_000,
      now: () => t,
      read: async () => {
        reads++;
        if (next instanceof Error) throw next;
        return next;
      },
    });
    expect(reads).toBe(0); // nothing read until scraped
    const scrape = async () => {
      const text = await registry.metrics();
      const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
      return [
        value('antrea_agent_conntrack_total_connection_count'),
        value('antrea_agent_conntrack_antrea_connection_count'),
        value('antrea_agent_conntrack_max_connection_count'),
      ];
    };
    expect(await scrape()).toEqual([5, 3, 100]);
    expect(reads).toBe(1); // one reading for the three gauges
    next = { total: 6, antrea: 4, max: 100 };
    t = 1_000;
    expect(await scrape()).toEqual([5, 3, 100]); // cached
    t = 2_000;
    expect(await scrape()).toEqual([6, 4, 100]);
    next = new Error('ovs-vswitchd is restarting');
    t = 4_000;
    expect(await scrape()).toEqual([6, 4, 100]);
    expect(reads).toBe(3);
  });
});
