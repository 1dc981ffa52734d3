import { AgentError } from '../errors.js';
import { GroupCommit, type ItemOutcome } from '../util/group-commit.js';
import type { CommandRunner } from './command-runner.js';
import { batchStderr, parseBatchErrors } from './ip-batcher.js';

/**
 * The link group (IFLA_GROUP) links are moved to just before they are deleted. Nothing else uses
 * it: the kernel's default group is 0, and this agent never puts a link there for any other reason.
 */
export const DELETING_LINK_GROUP = 16756;

const GONE = /Cannot find device|does not exist/;

/**
 * Deletes links (the host ends of Pod veths) for concurrent callers. Each deleted netdevice waits
 * for an RCU grace period under the RTNL lock, about 17 ms here, so deleting them one by one
 * serializes a burst of Pod DELs (30 took 0.5 s); deleting a link group unregisters all its members
 * with one wait. Each group commit moves its links to DELETING_LINK_GROUP, then deletes the group,
 * in one `ip -force -batch`. A link that is already gone counts as deleted.
 */
export class LinkDeleter {
  private readonly group: GroupCommit<string>;

  constructor(private readonly runner: CommandRunner) {
    this.group = new GroupCommit((names) => this.deleteAll(names));
  }

  delete(name: string): Promise<void> {
    if (!/^[a-zA-Z0-9_.-]{1,15}$/.test(name))
      return Promise.reject(
        new AgentError('AGENT_COMMAND_FAILED', `invalid link name ${JSON.stringify(name)}`),
      );
    return this.group.submit(name);
  }

  private async deleteAll(names: readonly string[]): Promise<ItemOutcome[]> {
    const lines = [...names.map((n) => `link set dev ${n} group ${DELETING_LINK_GROUP}`)];
    lines.push(`link del group ${DELETING_LINK_GROUP}`);
    try {
      await this.runner.run(['ip', '-force', '-batch', '-'], { input: `${lines.join('\n')}\n` });
      return names.map(() => undefined);
    } catch (err) {
      const { byLine, trailing } = parseBatchErrors(batchStderr(err));
      // An empty group (every link already gone) makes the kernel answer "No such device".
      const delError = byLine.get(lines.length);
      const groupFailed = delError !== undefined && !/No such device/.test(delError) ? delError : trailing;
      return names.map((name, i) => {
        const setError = byLine.get(i + 1);
        if (setError !== undefined)
          return GONE.test(setError)
            ? undefined
            : new AgentError('AGENT_COMMAND_FAILED', `deleting link ${name}: ${setError}`, { cause: err });
        return groupFailed
          ? new AgentError('AGENT_COMMAND_FAILED', `deleting link ${name}: ${groupFailed}`, { cause: err })
          : undefined;
      });
    }
  }
}
