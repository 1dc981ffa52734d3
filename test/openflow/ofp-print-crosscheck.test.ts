import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  encodeBundleAdd,
  encodeBundleControl,
  encodeFlowMod,
  encodeGroupMod,
  encodeHello,
  encodeMeterMod,
  encodePacketOut,
  formatActions,
  formatMatch,
} from '@antrea-ts/openflow';
import { SAMPLE_FLOWS } from '@antrea-ts/openflow/testing';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/** Decodes our bytes with OVS's own decoder (`ovs-ofctl ofp-print`). */
async function ofpPrint(msg: Buffer): Promise<string> {
  const { stdout } = await run('ovs-ofctl', ['ofp-print', msg.toString('hex')]);
  return stdout.trim();
}

describe('OVS decodes what we encode (ovs-ofctl ofp-print)', () => {
  for (const s of SAMPLE_FLOWS) {
    it(`flow_mod: ${s.name}`, async () => {
      const out = await ofpPrint(encodeFlowMod(1, { command: 'ADD', ...s.flow }));
      expect(out).not.toContain('decode error');
      expect(out).toContain(formatMatch(s.flow.match, s.flow.priority));
      expect(out).toContain(`actions=${formatActions(s.flow.actions)}`);
    });
  }

  it('hello with version bitmap', async () => {
    expect(await ofpPrint(encodeHello(5))).toBe('OFPT_HELLO (OF1.5) (xid=0x5):\n version bitmap: 0x06');
  });

  it('group_mod select with bucket ids and weights', async () => {
    const out = await ofpPrint(
      encodeGroupMod(2, {
        command: 'ADD',
        type: 'select',
        groupId: 7,
        buckets: [
          { bucketId: 0, weight: 100, actions: [{ type: 'output', port: 1 }] },
          { bucketId: 1, weight: 50, actions: [{ type: 'resubmit', table: 42 }] },
        ],
      }),
    );
    expect(out).toContain('ADD group_id=7,type=select');
    expect(out).toContain('bucket=bucket_id:0,weight:100,actions=output:1');
    expect(out).toContain('bucket=bucket_id:1,weight:50,actions=resubmit(,42)');
  });

  it('meter_mod', async () => {
    const out = await ofpPrint(
      encodeMeterMod(3, {
        command: 'ADD',
        meterId: 256,
        unit: 'pktps',
        burst: true,
        stats: true,
        bands: [{ type: 'drop', rate: 100, burstSize: 200 }],
      }),
    );
    expect(out).toContain('ADD meter=256 pktps burst stats bands=');
    expect(out).toContain('type=drop rate=100 burst_size=200');
  });

  it('bundle control and add', async () => {
    const open = await ofpPrint(encodeBundleControl(9, 77, 'OPEN_REQUEST', { atomic: true, ordered: true }));
    expect(open).toContain('bundle_id=0x4d type=OPEN_REQUEST flags=atomic ordered');
    const inner = SAMPLE_FLOWS[0]!;
    const add = await ofpPrint(
      encodeBundleAdd(
        77,
        { atomic: true, ordered: true },
        encodeFlowMod(10, { command: 'ADD', ...inner.flow }),
      ),
    );
    expect(add).toContain('OFPT_BUNDLE_ADD_MESSAGE');
    expect(add).toContain('bundle_id=0x4d flags=atomic ordered');
    expect(add).toContain(formatMatch(inner.flow.match, inner.flow.priority));
  });

  it('packet_out with in_port match', async () => {
    const out = await ofpPrint(
      encodePacketOut(4, { inPort: 3, actions: [{ type: 'output', port: 1 }], packet: Buffer.alloc(60) }),
    );
    expect(out).toContain('in_port=3 actions=output:1 data_len=60');
  });
});
