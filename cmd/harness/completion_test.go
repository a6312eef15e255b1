package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCompletionBash: the bash script, sourced by bash, completes the
// commands, each command's flags (one dash for one letter, two for more),
// the words a command takes, and leaves a flag's value to the shell's
// file completion.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on the PATH")
	}
	code, script, errOut := runCmd(t, "completion", "bash")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	tests := []struct {
		words []string // the command line, the last word being completed
		want  string   // COMPREPLY, joined by spaces
	}{
		{[]string{"harness", "ser"}, "serve"},
		{[]string{"harness", "co"}, "conform completion"},
		{[]string{"harness", "re"}, "report record"},
		{[]string{"harness", ""}, "serve generate validate schemas conform report record proxy version completion help"},
		{[]string{"harness", "conform", "--base"}, "--base-url"},
		{[]string{"harness", "conform", "--label"}, "--label-filter"},
		{[]string{"harness", "conform", "-v"}, "-v"},
		{[]string{"harness", "serve", "--block-i"}, "--block-interval"},
		{[]string{"harness", "report", "--github-"}, "--github-annotations --github-output"},
		{[]string{"harness", "conform", "--junit", ""}, ""},
		{[]string{"harness", "conform", "-junit", ""}, ""},
		{[]string{"harness", "completion", "z"}, "zsh"},
		{[]string{"harness", "help", "gen"}, "generate"},
		{[]string{"harness", "nope", "--x"}, ""},
	}
	var b strings.Builder
	b.WriteString(script)
	b.WriteString("\ntry() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _harness; echo \"${COMPREPLY[*]}\"; }\n")
	for _, tc := range tests {
		b.WriteString("try")
		for _, w := range tc.words {
			b.WriteString(" " + shellQuote(w))
		}
		b.WriteString("\n")
	}
	b.WriteString("complete -p harness\n")
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", b.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(tests)+1 {
		t.Fatalf("bash printed %d lines, want %d:\n%s", len(lines), len(tests)+1, out)
	}
	for i, tc := range tests {
		if lines[i] != tc.want {
			t.Errorf("completing %q: %q, want %q", strings.Join(tc.words, " "), lines[i], tc.want)
		}
	}
	if last := lines[len(tests)]; last != "complete -o default -F _harness harness" {
		t.Errorf("the script registers %q", last)
	}
}

// TestCompletionScripts: the zsh and fish scripts name every command and
// its flags, quoted for the shell (checked by the shell where one is
// installed); an unknown shell or none is a usage error.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"zsh", "fish"} {
		code, script, errOut := runCmd(t, "completion", shell)
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", shell, code, errOut)
		}
		for _, c := range commands() {
			if !strings.Contains(script, c.name) {
				t.Errorf("the %s script does not name %s", shell, c.name)
			}
		}
		for _, want := range map[string][]string{
			"zsh":  {"#compdef harness", `'--base-url[`, `'-v[`, `'completion:print a shell completion script\: bash, zsh or fish'`, "compdef _harness harness"},
			"fish": {"complete -c harness -n '__fish_seen_subcommand_from conform' -l base-url", "-s v", "-r -F"},
		}[shell] {
			if !strings.Contains(script, want) {
				t.Errorf("the %s script lacks %q", shell, want)
			}
		}
		if path, err := exec.LookPath(shell); err == nil {
			check := exec.Command(path, "-n")
			check.Stdin = strings.NewReader(script)
			if out, err := check.CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		}
	}
	wantUsageError(t, []string{"completion", "powershell"}, `unknown shell "powershell": want bash, zsh, fish`)
	wantUsageError(t, []string{"completion"}, "name one shell: bash, zsh, fish")
}

func TestShellEscapes(t *testing.T) {
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote = %s", got)
	}
	if got := zshEscape(`a:b[c]\d`); got != `a\:b\[c\]\\d` {
		t.Errorf("zshEscape = %s", got)
	}
}
