import type { Command } from "commander";
import { CliExit, type Io } from "../io.js";

/** Every command path of the tree with the words that may follow it (subcommands, options). */
export function completionWords(root: Command): Map<string, string[]> {
  const words = new Map<string, string[]>();
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    const options = cmd.options
      .filter((o) => !o.hidden)
      .flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
    words.set(path, [...subs.map((c) => c.name()), ...options, "--help"]);
    for (const c of subs) walk(c, `${path} ${c.name()}`);
  };
  walk(root, "svc");
  return words;
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** A bash script: `source <(svc completion bash)`, or save it in bash-completion's folder. */
export function bashScript(words: Map<string, string[]>): string {
  const cases = [...words]
    .map(([path, w]) => `    ${quote(path)}) echo ${quote(w.join(" "))} ;;`)
    .join("\n");
  return `# bash completion for svc, generated from its command tree by \`svc completion bash\`.
_svc_words() {
  case "$1" in
${cases}
    *) return 1 ;;
  esac
}
_svc_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="svc" i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    _svc_words "$path $w" >/dev/null && path="$path $w"
  done
  COMPREPLY=($(compgen -W "$(_svc_words "$path")" -- "$cur"))
}
complete -F _svc_complete svc
`;
}

/** A zsh script: `source <(svc completion zsh)` after compinit, or save it as _svc in $fpath. */
export function zshScript(words: Map<string, string[]>): string {
  const entries = [...words]
    .map(([path, w]) => `  ${quote(path)} ${quote(w.join(" "))}`)
    .join("\n");
  return `#compdef svc
# zsh completion for svc, generated from its command tree by \`svc completion zsh\`.
typeset -gA _svc_tree
_svc_tree=(
${entries}
)
_svc() {
  local cmdpath="svc" w i
  for ((i = 2; i < CURRENT; i++)); do
    w="\${words[i]}"
    [[ "$w" == -* ]] && continue
    (( \${+_svc_tree[$cmdpath $w]} )) && cmdpath="$cmdpath $w"
  done
  compadd -- \${=_svc_tree[$cmdpath]}
}
compdef _svc svc
`;
}

export function registerCompletion(program: Command, io: Io): void {
  program
    .command("completion")
    .description("print a shell completion script: svc completion bash|zsh")
    .argument("<shell>", "bash or zsh")
    .addHelpText(
      "after",
      '\nExamples:\n  source <(svc completion bash)          # in ~/.bashrc\n  svc completion zsh > "${fpath[1]}/_svc" # then restart zsh (compinit)\n',
    )
    .action(async (shell: string) => {
      if (shell !== "bash" && shell !== "zsh")
        throw new CliExit(2, `completion is for bash or zsh, not ${shell}`);
      // The whole tree, every module loaded: completion offers every command.
      const { buildFullProgram } = await import("../program.js");
      const words = completionWords(await buildFullProgram(io));
      io.out(shell === "bash" ? bashScript(words) : zshScript(words));
    });
}
