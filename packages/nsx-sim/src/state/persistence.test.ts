import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateFileError } from '../errors.js';
import { G, SP, startTestSim } from '../test-support.js';
import { JsonFilePersistence } from './persistence.js';
import { SimStore } from './sim-store.js';
import { emptyState } from './types.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nsx-sim-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('JsonFilePersistence', () => {
  it('round-trips the state and leaves no temp files behind', async () => {
    const p = new JsonFilePersistence(join(dir, 'state.json'));
    expect(await p.load()).toBeUndefined();
    const s = emptyState();
    s.counters.rule_id = 4242;
    await p.save(s);
    await p.save(s);
    expect((await p.load())?.counters.rule_id).toBe(4242);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('reports unreadable or foreign files with a coded error', async () => {
    const file = join(dir, 'state.json');
    await writeFile(file, '{broken');
    await expect(new JsonFilePersistence(file).load()).rejects.toMatchObject({ code: 'NSX_SIM_STATE_FILE' });
    await writeFile(file, JSON.stringify({ version: 99 }));
    await expect(new JsonFilePersistence(file).load()).rejects.toBeInstanceOf(StateFileError);
    const inMissingDir = new JsonFilePersistence(join(dir, 'nope', 'state.json'));
    await expect(inMissingDir.save(emptyState())).rejects.toMatchObject({ code: 'NSX_SIM_STATE_FILE' });
  });
});

describe('SimStore', () => {
  it('coalesces a burst of commits into few writes and flush waits for them', async () => {
    let writes = 0;
    const store = new SimStore(
      {
        load: async () => undefined,
        save: async () => {
          writes += 1;
        },
      },
      pino({ level: 'silent' }),
    );
    for (let i = 0; i < 50; i++) store.commit('policy');
    await store.flush();
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThanOrEqual(2);
    expect(store.generation).toBe(50);
    expect(store.policyGeneration).toBe(50);
    store.commit('health');
    expect(store.policyGeneration).toBe(50);
  });

  it('waitFor resolves on the commit that makes the predicate true, or false on timeout', async () => {
    const store = new SimStore(
      { load: async () => undefined, save: async () => {} },
      pino({ level: 'silent' }),
    );
    const waiting = store.waitFor(() => store.state.counters.rule_id === 1001, 5000);
    store.commit('policy');
    store.state.counters.rule_id = 1001;
    store.commit('policy');
    expect(await waiting).toBe(true);
    expect(await store.waitFor(() => false, 10)).toBe(false);
  });
});

describe('restart over the same state file', () => {
  it('a new simulator instance sees every object, revision, counter and report of the old one', async () => {
    const file = join(dir, 'state.json');
    const a = await startTestSim({ persistence: new JsonFilePersistence(file) });
    await a.call('PATCH', `${G}/web`, {
      group_type: ['ANTREA'],
      expression: [
        {
          resource_type: 'Condition',
          member_type: 'Pod',
          key: 'Tag',
          operator: 'EQUALS',
          value: 'dis:k8s:app|web',
        },
      ],
    });
    await a.call('PATCH', `${G}/web`, { description: 'v2' });
    await a.call('PATCH', `${SP}/p1`, {
      category: 'Emergency',
      rules: [{ id: 'r1', source_groups: ['/infra/domains/default/groups/web'], action: 'DROP' }],
    });
    await a.call('POST', '/api/v1/fabric/container-clusters', {
      resource_type: 'ContainerCluster',
      external_id: 'c1',
    });
    const ruleId = (await a.call('GET', `${SP}/p1/rules/r1`)).body.rule_id;
    await a.app.close(); // flushes
    const onDisk = JSON.parse(await readFile(file, 'utf8'));
    expect(onDisk.policy['/infra/domains/default/groups/web']._revision).toBe(1);

    const b = await startTestSim({ persistence: new JsonFilePersistence(file) });
    const web = (await b.call('GET', `${G}/web`)).body;
    expect(web).toMatchObject({ description: 'v2', _revision: 1 });
    const stale = await b.call('PUT', `${G}/web`, { _revision: 0 });
    expect(stale.status).toBe(412);
    expect((await b.call('GET', `${SP}/p1`)).body.rules[0]).toMatchObject({ id: 'r1', rule_id: ruleId });
    await b.call('PATCH', `${SP}/p1/rules/r2`, { action: 'ALLOW' });
    expect((await b.call('GET', `${SP}/p1/rules/r2`)).body.rule_id).toBe(ruleId + 1);
    expect((await b.call('GET', '/api/v1/fabric/container-clusters/c1')).status).toBe(200);
    await b.app.close();
  });
});
