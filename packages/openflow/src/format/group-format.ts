import { OFPP } from '../codec/constants.js';
import type { Bucket } from '../codec/group-mod.js';
import type { GroupDesc } from '../codec/multipart.js';
import { formatActions } from './flow-format.js';

const TYPE_NAMES: Record<GroupDesc['type'], string> = {
  all: 'all',
  select: 'select',
  indirect: 'indirect',
  ff: 'fast_failover',
};

function formatBucket(b: Bucket, type: GroupDesc['type']): string {
  const parts = [`bucket_id:${b.bucketId}`];
  if (type === 'select' && b.weight !== undefined) parts.push(`weight:${b.weight}`);
  // OVS reports "any" watches on every bucket; like ovs-ofctl, only real ones are printed.
  if (b.watchPort !== undefined && b.watchPort !== OFPP.ANY) parts.push(`watch_port:${b.watchPort}`);
  if (b.watchGroup !== undefined && b.watchGroup !== OFPP.ANY) parts.push(`watch_group:${b.watchGroup}`);
  parts.push(`actions=${formatActions(b.actions)}`);
  return `bucket=${parts.join(',')}`;
}

/** A group as `ovs-ofctl -O OpenFlow15 dump-groups` prints it. */
export function formatGroup(g: GroupDesc): string {
  return [
    `group_id=${g.groupId}`,
    `type=${TYPE_NAMES[g.type]}`,
    ...g.buckets.map((b) => formatBucket(b, g.type)),
  ].join(',');
}
