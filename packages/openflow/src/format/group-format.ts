import { OFPP } from '../codec/constants.js';
import { getField } from '../codec/fields.js';
import type { Bucket } from '../codec/group-mod.js';
import type { SelectionField, SelectionMethod } from '../codec/group-props.js';
import type { GroupDesc } from '../codec/multipart.js';
import { formatActions, formatFieldValue, mfName } from './flow-format.js';

const TYPE_NAMES: Record<GroupDesc['type'], string> = {
  all: 'all',
  select: 'select',
  indirect: 'indirect',
  ff: 'fast_failover',
};

function formatBucket(b: Bucket, type: GroupDesc['type']): string {
  const parts = [`bucket_id:${b.bucketId}`];
  // ovs-ofctl leaves out the default weight: 1 in select groups, 0 (none) elsewhere.
  if (b.weight !== undefined && b.weight !== (type === 'select' ? 1 : 0)) parts.push(`weight:${b.weight}`);
  // OVS reports "any" watches on every bucket; like ovs-ofctl, only real ones are printed.
  if (b.watchPort !== undefined && b.watchPort !== OFPP.ANY) parts.push(`watch_port:${b.watchPort}`);
  if (b.watchGroup !== undefined && b.watchGroup !== OFPP.ANY) parts.push(`watch_group:${b.watchGroup}`);
  parts.push(`actions=${formatActions(b.actions)}`);
  return `bucket=${parts.join(',')}`;
}

/** A hashed field by its meta-flow name; a partial mask follows as `name=mask`. */
function formatSelectionField(f: SelectionField): string {
  const name = mfName(f.field);
  return f.mask === undefined ? name : `${name}=${formatFieldValue(getField(f.field), f.mask)}`;
}

/** The selection method as ovs-ofctl prints it after the type: fields in the given order. */
function formatSelection(sm: SelectionMethod): string[] {
  const parts = [`selection_method=${sm.method}`];
  if (sm.param) parts.push(`selection_method_param=${sm.param}`);
  const fields = (sm.fields ?? []).map(formatSelectionField);
  if (fields.length === 1) parts.push(`fields=${fields[0]}`);
  else if (fields.length > 1) parts.push(`fields(${fields.join(',')})`);
  return parts;
}

/** A group as `ovs-ofctl -O OpenFlow15 dump-groups` prints it. */
export function formatGroup(g: GroupDesc): string {
  return [
    `group_id=${g.groupId}`,
    `type=${TYPE_NAMES[g.type]}`,
    ...(g.selection ? formatSelection(g.selection) : []),
    ...g.buckets.map((b) => formatBucket(b, g.type)),
  ].join(',');
}
