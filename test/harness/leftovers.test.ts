import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, uniqueTag } from '@antrea-ts/harness';
import { describe, expect, it } from 'vitest';

// The leak check that `npm test` runs last is only worth something if it sees real leftovers.
describe('hack/leftovers.sh', () => {
  it('lists a leftover netns and temp dir, and removes exactly what it is given', async () => {
    const ns = `ats-${uniqueTag()}-leak`;
    const dir = mkdtempSync(join(tmpdir(), 'antrea-ts-leak-'));
    await run(['ip', 'netns', 'add', ns]);
    try {
      const listed = await run(['hack/leftovers.sh', 'list']);
      expect(listed).toContain(`netns ${ns}`);
      expect(listed).toContain(`dir ${dir}`);

      const file = join(dir, 'remove.txt');
      writeFileSync(file, `netns ${ns}\n`);
      await run(['hack/leftovers.sh', 'remove', file]);
      const after = await run(['hack/leftovers.sh', 'list']);
      expect(after).not.toContain(`netns ${ns}`);
      expect(after).toContain(`dir ${dir}`);

      writeFileSync(join(tmpdir(), `${ns}.txt`), `dir ${dir}\n`);
      await run(['hack/leftovers.sh', 'remove', join(tmpdir(), `${ns}.txt`)]);
      expect(await run(['hack/leftovers.sh', 'list'])).not.toContain(`dir ${dir}`);
    } finally {
      await run(['ip', 'netns', 'delete', ns]).catch(() => undefined);
      await run(['rm', '-rf', dir, join(tmpdir(), `${ns}.txt`)]);
    }
  });
});
