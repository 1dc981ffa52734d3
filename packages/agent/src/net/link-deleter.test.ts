import { describe, expect, it } from 'vitest';
import { ScriptedIp } from '../testing/scripted-ip.js';
import { DELETING_LINK_GROUP, LinkDeleter } from './link-deleter.js';

const G = DELETING_LINK_GROUP;

describe('LinkDeleter', () => {
  it('deletes the links of concurrent callers as one link group', async () => {
    const ip = new ScriptedIp();
    const d = new LinkDeleter(ip);
    await Promise.all([d.delete('a'), d.delete('b'), d.delete('c')]);
    expect(ip.inputs).toEqual([
      `link set dev a group ${G}\nlink del group ${G}\n`,
      `link set dev b group ${G}\nlink set dev c group ${G}\nlink del group ${G}\n`,
    ]);
  });

  it('counts links already gone as deleted, and an empty group as nothing to do', async () => {
    const ip = new ScriptedIp();
    const d = new LinkDeleter(ip);
    ip.stderr.push(
      'Cannot find device "a"\nCommand failed -:1\nRTNETLINK answers: No such device\nCommand failed -:2\n',
    );
    await expect(d.delete('a')).resolves.toBeUndefined();
  });

  it('fails only the caller whose link could not be moved, and all when the group delete fails', async () => {
    const ip = new ScriptedIp();
    const d = new LinkDeleter(ip);
    ip.stderr.push('', 'RTNETLINK answers: Operation not permitted\nCommand failed -:2\n');
    const first = d.delete('a');
    const rest = [d.delete('b'), d.delete('c')];
    await first;
    const [b, c] = await Promise.allSettled(rest);
    expect(b?.status).toBe('fulfilled');
    expect(c).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringContaining('c: RTNETLINK answers: Operation not permitted') },
    });

    ip.stderr.push('RTNETLINK answers: Device or resource busy\nCommand failed -:2\n');
    await expect(d.delete('x')).rejects.toMatchObject({ message: expect.stringContaining('busy') });
  });

  it('fails every caller when ip exits without saying which line failed (killed, say)', async () => {
    const killed = Object.assign(new Error('ip -force -batch -: exit 137'), { stderr: '', exitCode: 137 });
    const d = new LinkDeleter({ run: () => Promise.reject(killed) });
    const results = await Promise.allSettled([d.delete('a'), d.delete('b')]);
    expect(results).toEqual([
      { status: 'rejected', reason: killed },
      { status: 'rejected', reason: killed },
    ]);
  });

  it('refuses names that are not Linux interface names, before running anything', async () => {
    const ip = new ScriptedIp();
    await expect(new LinkDeleter(ip).delete('a\nlink del b')).rejects.toMatchObject({
      code: 'AGENT_COMMAND_FAILED',
    });
    expect(ip.inputs).toEqual([]);
  });
});
