/**
 * Shell completion, answered by gw itself (`gw completion --words ...`), so it knows what a
 * static script cannot: the values of a flag (channels, currencies, states) and the names of
 * the profiles stored now. The shell scripts (`gw completion bash|zsh`) only ask and show.
 */

/** What completion needs of a command: its id and its flags. */
export interface CompletableCommand {
  id: string
  hidden?: boolean
  flags: Record<string, {type: string; char?: string; options?: readonly string[]; hidden?: boolean}>
}

/** Said instead of words when the shell should complete file names. */
export const FILES = '__files__'

/** Flags whose value is a file or folder. */
const PATH_FLAGS = new Set([
  'from-csv',
  'out',
  'journal',
  'log',
  'qr-out',
  'private-key',
  'gateway-public-key',
  'public-key',
  'data-dir',
  'out-dir',
])

/** The next word of a command's name after the words `typed`, that begin as `current` does. */
function nextWords(typed: readonly string[], current: string, visible: readonly CompletableCommand[]): string[] {
  const prefix = typed.join(':')
  const next = new Set(
    visible
      .map((c) => c.id)
      .filter((id) => !prefix || id.startsWith(`${prefix}:`))
      .map((id) => id.split(':')[typed.length]!)
      .filter(Boolean),
  )
  return [...next].filter((word) => word.startsWith(current)).sort()
}

/**
 * The words that may come next. `words`: what follows `gw` on the line, the last being the
 * word under the cursor (possibly empty); `guides`: what `gw help` takes beside commands.
 */
export function candidates(
  words: readonly string[],
  commands: readonly CompletableCommand[],
  profiles: () => string[],
  guides: readonly string[] = [],
): string[] {
  const visible = commands.filter((c) => !c.hidden)
  const typed = words.slice(0, -1)
  const current = words.at(-1) ?? ''
  // The command: the longest id spelled by the leading words.
  const command = visible
    .filter((c) => {
      const parts = c.id.split(':')
      return parts.length <= typed.length && parts.every((part, i) => typed[i] === part)
    })
    .sort((a, b) => b.id.length - a.id.length)[0]
  if (!command) return nextWords(typed, current, visible)
  // `gw help` takes a command's name, or a guide in its place.
  if (command.id === 'help' && !current.startsWith('-')) {
    const named = nextWords(typed.slice(1), current, visible)
    return typed.length > 1 ? named : [...named, ...guides.filter((guide) => guide.startsWith(current))].sort()
  }
  const byName = new Map<string, [string, CompletableCommand['flags'][string]]>()
  for (const [name, flag] of Object.entries(command.flags)) {
    byName.set(`--${name}`, [name, flag])
    if (flag.char) byName.set(`-${flag.char}`, [name, flag])
  }
  const previous = byName.get(typed.at(-1) ?? '')
  if (previous && previous[1].type === 'option' && typed.length > command.id.split(':').length) {
    const [name, flag] = previous
    // A value matches as typed in any case (`--fee-type t` offers THB): the shell puts the value as it is spelled.
    if (flag.options) return flag.options.filter((o) => o.toLowerCase().startsWith(current.toLowerCase()))
    if (name === 'profile') return profiles().filter((p) => p.startsWith(current))
    return PATH_FLAGS.has(name) ? [FILES] : []
  }
  if (current.startsWith('-'))
    return Object.entries(command.flags)
      .filter(([, flag]) => !flag.hidden)
      .map(([name]) => `--${name}`)
      .filter((flag) => flag.startsWith(current))
      .sort()
  return [FILES]
}

/** The shells gw writes a completion script for. */
export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const
type Shell = (typeof SHELLS)[number]

/**
 * The script that hands a shell's completion to gw. gw's words are taken as they are, one per
 * line: never through `compgen -W`, which would expand `$(...)` in them. Windows PowerShell 5.1
 * drops an empty argument, so its script says an empty word under the cursor with --empty-word.
 */
export function completionScript(shell: Shell, bin: string): string {
  if (shell === 'bash')
    return `# gw completion for bash: add to ~/.bashrc:  source <(${bin} completion bash)
_${bin}_complete() {
  local IFS=$'\\n' out word
  out=$(${bin} completion --words -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  COMPREPLY=()
  if [[ "$out" == "${FILES}" ]]; then
    COMPREPLY=($(compgen -f -- "\${COMP_WORDS[COMP_CWORD]}"))
  else
    while IFS= read -r word; do [[ -n "$word" ]] && COMPREPLY+=("$word"); done <<< "$out"
  fi
}
complete -o default -F _${bin}_complete ${bin}
`
  if (shell === 'zsh')
    return `#compdef ${bin}
# gw completion for zsh: add to ~/.zshrc:  source <(${bin} completion zsh)
_${bin}() {
  local -a out
  out=("\${(@f)$(${bin} completion --words -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ "\${out[1]}" == "${FILES}" ]]; then _files; else compadd -U -- "\${out[@]}"; fi
}
compdef _${bin} ${bin}
`
  if (shell === 'fish')
    return `# gw completion for fish: add to ~/.config/fish/config.fish:  ${bin} completion fish | source
function __${bin}_complete
    set -l out (${bin} completion --words -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)
    if test "$out" = "${FILES}"
        __fish_complete_path (commandline -ct)
    else
        printf '%s\n' $out
    end
end
complete -c ${bin} -f -a '(__${bin}_complete)'
`
  return `# gw completion for PowerShell: add to your profile (notepad $PROFILE):  ${bin} completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName '${bin}', '${bin}.exe' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $words = @($commandAst.CommandElements | Select-Object -Skip 1 |
        Where-Object { $_.Extent.EndOffset -le $cursorPosition } | ForEach-Object { $_.Extent.Text })
    $empty = @(if ($wordToComplete -eq '') { '--empty-word' })
    $out = @(& ${bin} completion --words @empty -- @words 2>$null)
    # Nothing offered: PowerShell completes file names itself.
    if ($out.Count -eq 1 -and $out[0] -eq '${FILES}') { return }
    $out | Where-Object { $_ } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }
}
`
}
