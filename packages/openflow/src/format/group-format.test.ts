import { describe, expect, it } from 'vitest';
import { load } from '../codec/actions.js';
import { OFPP } from '../codec/constants.js';
import { formatGroup } from './group-format.js';

describe('formatGroup', () => {
  it('prints a select group as ovs-ofctl does: id, type, then each bucket with weight and actions', () => {
    expect(
      formatGroup({
        groupId: 9,
        type: 'select',
        buckets: [
          {
            bucketId: 0,
            weight: 100,
            watchPort: OFPP.ANY,
            actions: [load('reg3', 0x0a0a0002), { type: 'resubmit', table: 12 }],
          },
          { bucketId: 1, weight: 100, actions: [load('reg3', 0x0a0a0103), { type: 'resubmit', table: 12 }] },
        ],
      }),
    ).toBe(
      'group_id=9,type=select,' +
        'bucket=bucket_id:0,weight:100,actions=set_field:0xa0a0002->reg3,resubmit(,12),' +
        'bucket=bucket_id:1,weight:100,actions=set_field:0xa0a0103->reg3,resubmit(,12)',
    );
  });

  it('names fast_failover and prints real watches; a bucketless group is just its id and type', () => {
    expect(
      formatGroup({
        groupId: 2,
        type: 'ff',
        buckets: [{ bucketId: 5, watchPort: 3, actions: [{ type: 'output', port: 3 }] }],
      }),
    ).toBe('group_id=2,type=fast_failover,bucket=bucket_id:5,watch_port:3,actions=output:3');
    expect(formatGroup({ groupId: 7, type: 'select', buckets: [] })).toBe('group_id=7,type=select');
  });
});
