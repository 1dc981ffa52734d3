// `antctl completion bash|zsh`: a static completion script generated from the command tree, so it
// can never drift from the commands that exist. zsh loads the same script through bashcompinit.
import type { Command } from 'commander';
import type { AntctlDeps } from '../context.js';
import { AntctlError } from '../errors.js';

interface Node {
  path: string;
  words: string[];
}

function flagsOf(cmd: Command): string[] {
  const out: string[] = [];
  for (const o of cmd.options) {
    if (o.long) out.push(o.long);
    if (o.short) out.push(o.short);
  }
  return out;
}

/** Every command path ("", "get", "get networkpolicy", ...) with the words that may follow it. */
export function completionTable(root: Command): Node[] {
  const nodes: Node[] = [];
  const globals = flagsOf(root);
  const walk = (cmd: Command, path: string[]) => {
    const subs: string[] = [];
    for (const c of cmd.commands) {
      subs.push(c.name(), ...c.aliases());
      for (const name of [c.name(), ...c.aliases()]) walk(c, [...path, name]);
    }
    nodes.push({ path: path.join(' '), words: [...subs, ...flagsOf(cmd), ...globals, '--help'] });
  };
  walk(root, []);
  // Uniq words per node, keep order.
  for (const n of nodes) n.words = [...new Set(n.words)];
  return nodes;
}

export function bashCompletion(root: Command, programName: string): string {
  const fn = `__${programName.replace(/[^A-Za-z0-9]/g, '_')}_complete`;
  const cases = completionTable(root)
    .map((n) => `    "${n.path}") words="${n.words.join(' ')}" ;;`)
    .join('\n');
  return `# ${programName} completion (bash; zsh: autoload -U +X bashcompinit && bashcompinit first)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local path="" w i words
  # The deepest command path typed so far; flags and their values are skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "\${path:+$path }$w" in
${completionTable(root)
  .filter((n) => n.path !== '')
  .map((n) => `      "${n.path}") path="${n.path}" ;;`)
  .join('\n')}
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F ${fn} ${programName.split(' ').pop()}
`;
}

export function zshCompletion(root: Command, programName: string): string {
  return `#compdef ${programName.split(' ').pop()}
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(root, programName)}`;
}

export function addCompletionCommand(program: Command, deps: AntctlDeps): void {
  program
    .command('completion')
    .summary('Generate the autocompletion script for the specified shell')
    .description(
      'Generate the autocompletion script for bash or zsh. Load it in the current shell with\n  source <(antctl completion bash)',
    )
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      const name = 'antctl';
      if (shell === 'bash') deps.stdout.write(bashCompletion(program, name));
      else if (shell === 'zsh') deps.stdout.write(zshCompletion(program, name));
      else throw new AntctlError('ANTCTL_USAGE', `unsupported shell "${shell}": want bash or zsh`);
    });
}

/**
 * Cobra's `__complete` protocol, which kubectl (1.26+) uses for plugins through a
 * `kubectl_complete-antctl` executable: candidates for the last word, one per line, then
 * `:<directive>` (4 = do not fall back to file names).
 */
export function cobraComplete(root: Command, words: readonly string[]): string {
  const table = new Map(completionTable(root).map((n) => [n.path, n.words]));
  const typed = words.slice(0, -1);
  const last = words.at(-1) ?? '';
  let path = '';
  for (const w of typed) {
    if (w.startsWith('-')) continue;
    const next = path === '' ? w : `${path} ${w}`;
    if (table.has(next)) path = next;
  }
  const candidates = (table.get(path) ?? []).filter(
    (w) => w.startsWith(last) && (last.startsWith('-') || !w.startsWith('-')),
  );
  return `${candidates.join('\n')}${candidates.length > 0 ? '\n' : ''}:4\n`;
}
