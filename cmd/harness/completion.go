package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// completionShells are the shells harness completion writes scripts for.
var completionShells = []string{"bash", "zsh", "fish"}

// runCompletion prints a script that completes harness's commands and each
// command's flags in a shell: source it, or install it where the shell
// looks for completions.
func runCompletion(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "completion", "bash|zsh|fish\n\n  bash: source <(harness completion bash)\n  zsh:  source <(harness completion zsh)\n  fish: harness completion fish | source")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(e.stderr, fs, "name one shell: %s", strings.Join(completionShells, ", "))
	}
	shell := fs.Arg(0)
	cmds := completionCommands(ctx)
	switch shell {
	case "bash":
		writeBashCompletion(e.stdout, cmds)
	case "zsh":
		writeZshCompletion(e.stdout, cmds)
	case "fish":
		writeFishCompletion(e.stdout, cmds)
	default:
		return usageError(e.stderr, fs, "unknown shell %q: want %s", shell, strings.Join(completionShells, ", "))
	}
	return exitOK
}

// completionCommand is a command as a completion script offers it.
type completionCommand struct {
	name, summary string
	flags         []completionFlag
	// words are the arguments it takes from a fixed list (completion's
	// shells, help's commands); nil for files.
	words []string
}

// completionFlag is one flag of a command.
type completionFlag struct {
	name, usage string
	// value says the flag takes a value (it is not a boolean).
	value bool
}

// completionCommands lists the commands with their flags, read from the
// flag sets they make: each command is run with -h, its output discarded.
func completionCommands(ctx context.Context) []completionCommand {
	var out []completionCommand
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	for _, c := range commands() {
		cc := completionCommand{name: c.name, summary: c.summary}
		if c.name == "completion" {
			cc.words = completionShells
		} else {
			var sets []*flag.FlagSet
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, flagSet: func(fs *flag.FlagSet) { sets = append(sets, fs) }}
			c.run(ctx, e, []string{"-h"})
			for _, fs := range sets {
				fs.VisitAll(func(f *flag.Flag) {
					bf, isBool := f.Value.(interface{ IsBoolFlag() bool })
					usage, _ := flag.UnquoteUsage(f)
					cc.flags = append(cc.flags, completionFlag{name: f.Name, usage: usage, value: !(isBool && bf.IsBoolFlag())})
				})
			}
		}
		out = append(out, cc)
	}
	out = append(out, completionCommand{name: "help", summary: "print the usage of harness or of a command", words: names})
	return out
}

func writeBashCompletion(w io.Writer, cmds []completionCommand) {
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(w, `# bash completion for harness: source <(harness completion bash)
_harness() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W %s -- "$cur"))
		return
	fi
	local flags= valued= words=
	case ${COMP_WORDS[1]} in
`, shellQuote(strings.Join(names, " ")))
	for _, c := range cmds {
		var flags, valued []string
		for _, f := range c.flags {
			flags = append(flags, dashed(f.name))
			if f.value {
				valued = append(valued, dashed(f.name))
			}
		}
		fmt.Fprintf(w, "\t%s) flags=%s valued=%s words=%s ;;\n", c.name,
			shellQuote(strings.Join(flags, " ")), shellQuote(" "+strings.Join(valued, " ")+" "), shellQuote(strings.Join(c.words, " ")))
	}
	fmt.Fprint(w, `	esac
	# A flag's value: files, as the shell would complete them. Go's
	# flags take one dash or two.
	local p=${prev#-}
	p=${p#-}
	if [[ $prev == -* && ($valued == *" --$p "* || $valued == *" -$p "*) ]]; then
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	elif [ -n "$words" ]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	fi
}
complete -o default -F _harness harness
`)
}

func writeZshCompletion(w io.Writer, cmds []completionCommand) {
	fmt.Fprint(w, "#compdef harness\n# zsh completion for harness: source <(harness completion zsh), or save as _harness on $fpath\n_harness() {\n\tlocal -a commands\n\tcommands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "\t\t%s\n", shellQuote(zshEscape(c.name)+":"+zshEscape(c.summary)))
	}
	fmt.Fprint(w, "\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe command commands\n\t\treturn\n\tfi\n\tcase $words[2] in\n")
	for _, c := range cmds {
		var specs []string
		for _, f := range c.flags {
			spec := dashed(f.name) + "[" + zshEscape(firstUsageLine(f.usage)) + "]"
			if f.value {
				spec += ":" + zshEscape(f.name) + ":_files"
			}
			specs = append(specs, shellQuote(spec))
		}
		switch {
		case c.words != nil:
			specs = append(specs, shellQuote("1:"+c.name+":("+strings.Join(c.words, " ")+")"))
		default:
			specs = append(specs, shellQuote("*:file:_files"))
		}
		fmt.Fprintf(w, "\t%s) _arguments %s ;;\n", c.name, strings.Join(specs, " "))
	}
	fmt.Fprint(w, "\tesac\n}\nif [ \"$funcstack[1]\" = _harness ]; then\n\t_harness \"$@\"\nelse\n\tcompdef _harness harness\nfi\n")
}

func writeFishCompletion(w io.Writer, cmds []completionCommand) {
	fmt.Fprint(w, "# fish completion for harness: harness completion fish | source\ncomplete -c harness -f\n")
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c harness -n %s -a %s -d %s\n",
			shellQuote("not __fish_seen_subcommand_from "+strings.Join(names, " ")), c.name, shellQuote(c.summary))
	}
	for _, c := range cmds {
		when := shellQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range c.flags {
			opt := "-l"
			if len(f.name) == 1 {
				opt = "-s"
			}
			line := fmt.Sprintf("complete -c harness -n %s %s %s -d %s", when, opt, f.name, shellQuote(firstUsageLine(f.usage)))
			if f.value {
				line += " -r -F"
			}
			fmt.Fprintln(w, line)
		}
		switch {
		case c.words != nil:
			fmt.Fprintf(w, "complete -c harness -n %s -a %s\n", when, shellQuote(strings.Join(c.words, " ")))
		case !slices.Contains([]string{"version"}, c.name):
			fmt.Fprintf(w, "complete -c harness -n %s -F\n", when)
		}
	}
}

// shellQuote quotes s for a POSIX shell (and zsh, and fish): single
// quotes, each one inside closed, escaped and opened again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// zshEscape escapes what _arguments and _describe read as syntax: a
// colon, brackets and backslashes.
func zshEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, ":", `\:`, "[", `\[`, "]", `\]`).Replace(s)
}

// firstUsageLine is the first line of a flag's usage.
func firstUsageLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
