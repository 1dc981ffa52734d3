import type { Logger } from 'pino';
import type { CommandRunner } from '../../net/command-runner.js';
import type { CompletedRule } from '../rule-cache.js';
import {
  type AntreaHostPorts,
  BUILTIN_JUMPS,
  EGRESS_RULES_CHAIN,
  filterRestoreInput,
  hostRuleOf,
  INGRESS_RULES_CHAIN,
  policyChainRules,
  RULE_CHAIN_PREFIX,
  STATIC_CHAINS,
  staticChainRules,
} from './host-rules.js';

/** A per-rule service chain in `iptables -S` output: the prefix and 16 hex digits. */
const RULE_CHAIN_LINE = new RegExp(`^-N (${RULE_CHAIN_PREFIX}[0-9A-F]{16})$`);

/**
 * The NodeNetworkPolicy state of the Node's filter table (Antrea's nodeReconciler plus the route
 * client's part of it). `prepare()` sets up the static chains and jumps without touching the
 * policies' rules, so after an agent restart the previous run's rules keep applying until the
 * first `sync()` replaces them; each `sync()` rewrites every policy chain in one
 * iptables-restore commit; `cleanup()` removes it all (feature gate off). Calls run one at a time,
 * in call order.
 */
export class NodePolicyIptables {
  private readonly log: Logger;
  private queue: Promise<unknown> = Promise.resolve();
  /** The per-rule chains on the Node (the last run's until the first sync). */
  private ruleChains = new Set<string>();
  private lastInput: string | undefined;

  constructor(
    private readonly runner: CommandRunner,
    logger: Logger,
    private readonly antreaPorts: AntreaHostPorts = {},
  ) {
    this.log = logger.child({ component: 'node-network-policy' });
  }

  /** Creates the chains and jumps that are missing and rewrites the static ones; policy rules stay. */
  prepare(): Promise<void> {
    return this.serialized(async () => {
      for (const chain of [INGRESS_RULES_CHAIN, EGRESS_RULES_CHAIN])
        if (!(await this.succeeds(['-S', chain]))) await this.iptables(['-N', chain]);
      await this.restore(filterRestoreInput(staticChainRules(this.antreaPorts), []));
      for (const j of BUILTIN_JUMPS)
        if (!(await this.succeeds(['-C', j.from, ...j.spec]))) await this.iptables(['-A', j.from, ...j.spec]);
      this.ruleChains = await this.existingRuleChains();
      this.log.info({ ruleChains: this.ruleChains.size }, 'NodeNetworkPolicy chains ready');
    });
  }

  /** Writes the rules of the policies applied to this Node; unchanged rule sets cost nothing. */
  sync(rules: readonly CompletedRule[]): Promise<void> {
    return this.serialized(async () => {
      const hostRules = rules.flatMap((r) => hostRuleOf(r) ?? []);
      const chains = policyChainRules(hostRules);
      const stale = [...this.ruleChains].filter((c) => !chains.has(c)).sort();
      const input = filterRestoreInput(chains, stale);
      if (input === this.lastInput) return;
      await this.restore(input);
      this.lastInput = input;
      this.ruleChains = new Set(
        [...chains.keys()].filter((c) => c !== INGRESS_RULES_CHAIN && c !== EGRESS_RULES_CHAIN),
      );
      this.log.info(
        { rules: hostRules.length, removedChains: stale.length },
        'NodeNetworkPolicy rules written',
      );
    });
  }

  /** Removes the jumps and every NodeNetworkPolicy chain (feature off). Idempotent. */
  cleanup(): Promise<void> {
    return this.serialized(async () => {
      for (const j of BUILTIN_JUMPS)
        while (await this.succeeds(['-C', j.from, ...j.spec])) await this.iptables(['-D', j.from, ...j.spec]);
      const present: string[] = [];
      for (const chain of STATIC_CHAINS) if (await this.succeeds(['-S', chain])) present.push(chain);
      present.push(...(await this.existingRuleChains()));
      if (present.length === 0) return;
      await this.restore(filterRestoreInput(new Map(), present));
      this.ruleChains.clear();
      this.lastInput = undefined;
      this.log.info({ chains: present.length }, 'NodeNetworkPolicy chains removed');
    });
  }

  private async existingRuleChains(): Promise<Set<string>> {
    const out = new Set<string>();
    for (const line of (await this.iptables(['-S'])).split('\n')) {
      const m = RULE_CHAIN_LINE.exec(line.trim());
      if (m) out.add(m[1]!);
    }
    return out;
  }

  private serialized(op: () => Promise<void>): Promise<void> {
    const run = this.queue.then(op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async restore(input: string): Promise<void> {
    await this.runner.run(['iptables-restore', '--noflush', '-w', '5'], { input });
  }

  private async succeeds(args: readonly string[]): Promise<boolean> {
    try {
      await this.iptables(args);
      return true;
    } catch {
      return false;
    }
  }

  private iptables(args: readonly string[]): Promise<string> {
    return this.runner.run(['iptables', '-w', '5', '-t', 'filter', ...args]);
  }
}
