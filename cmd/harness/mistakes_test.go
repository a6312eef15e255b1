package main

import (
	"strings"
	"testing"
)

// mistake is a wrong command line and the whole of what harness must say
// about it on standard error, exiting with exitUsage and printing nothing on
// standard output.
type mistake struct {
	args   []string
	stderr string
}

// checkMistakes runs every mistake in-process and holds it to its message,
// to the usage exit code and to a few lines.
func checkMistakes(t *testing.T, tests []mistake) {
	t.Helper()
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, tc.args...)
			if code != exitUsage {
				t.Errorf("harness %s: exit %d, want %d", strings.Join(tc.args, " "), code, exitUsage)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if errOut != tc.stderr {
				t.Errorf("harness %s: stderr\n%s\nwant\n%s", strings.Join(tc.args, " "), errOut, tc.stderr)
			}
			if n := strings.Count(errOut, "\n"); n > 3 {
				t.Errorf("stderr has %d lines, want at most 3", n)
			}
		})
	}
}

// TestFlagMistakes holds an unknown flag to a line naming the nearest
// known flag (by edit distance or synonym) and the way to see all, and a
// flag's missing or wrong value to a line in our words: never the flag
// package's "flag provided but not defined" and its whole usage.
func TestFlagMistakes(t *testing.T) {
	checkMistakes(t, []mistake{
		{[]string{"serve", "--port", "9090"},
			"harness serve: unknown flag --port; did you mean --addr?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "-port=9090"},
			"harness serve: unknown flag --port; did you mean --addr?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--prot", "9090"}, // near a synonym
			"harness serve: unknown flag --prot; did you mean --addr?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"proxy", "--port", "9090"},
			"harness proxy: unknown flag --port; did you mean --listen?\nRun \"harness proxy -h\" to see all flags.\n"},
		{[]string{"serve", "--sacle", "2"},
			"harness serve: unknown flag --sacle; did you mean --scale?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--max-page", "10"},
			"harness serve: unknown flag --max-page; did you mean --max-page-size?\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"generate", "--output", "dir"},
			"harness generate: unknown flag --output; did you mean --out?\nRun \"harness generate -h\" to see all flags.\n"},
		{[]string{"record", "--base-url", "http://127.0.0.1:8080"},
			"harness record: unknown flag --base-url; did you mean --from?\nRun \"harness record -h\" to see all flags.\n"},
		{[]string{"conform", "--url", "http://127.0.0.1:8080"},
			"harness conform: unknown flag --url; did you mean --base-url?\nRun \"harness conform -h\" to see all flags.\n"},
		{[]string{"conform", "--verbose"},
			"harness conform: unknown flag --verbose; did you mean -v?\nRun \"harness conform -h\" to see all flags.\n"},
		{[]string{"validate", "--frobnicate"},
			"harness validate: unknown flag --frobnicate\nRun \"harness validate -h\" to see all flags.\n"},

		{[]string{"serve", "--addr"},
			"harness serve: --addr needs a value\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--scale", "big"},
			"harness serve: --scale: \"big\" is not a number\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--seed", "1.5"},
			"harness serve: --seed: \"1.5\" is not a whole number\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--seed", "99999999999999999999"},
			"harness serve: --seed: \"99999999999999999999\" is out of range\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--latency", "soon"},
			"harness serve: --latency: \"soon\" is not a duration (such as 500ms, 2s or 1m30s)\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"serve", "--strict=maybe"},
			"harness serve: --strict: \"maybe\" is not true or false\nRun \"harness serve -h\" to see all flags.\n"},
		{[]string{"conform", "--rate", "fast"},
			"harness conform: --rate: want requests per second, a number, got \"fast\"\nRun \"harness conform -h\" to see all flags.\n"},
		{[]string{"serve", "---addr"},
			"harness serve: bad flag syntax: ---addr\nRun \"harness serve -h\" to see all flags.\n"},
	})
}

// TestHelpStillPrintsEveryFlag: -h, which the short messages point to,
// prints the whole usage and exits 0.
func TestHelpStillPrintsEveryFlag(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "-help"} {
		code, _, errOut := runCmd(t, "serve", arg)
		if code != exitOK {
			t.Errorf("harness serve %s: exit %d, want %d", arg, code, exitOK)
		}
		if !strings.HasPrefix(errOut, "Usage: harness serve") || !strings.Contains(errOut, "-max-header-bytes") {
			t.Errorf("harness serve %s: stderr %q, want the whole usage", arg, errOut)
		}
	}
}

// TestCommandMistakes holds an unknown command to a line naming the
// nearest command (by edit distance, prefix or synonym) and how to see all.
func TestCommandMistakes(t *testing.T) {
	checkMistakes(t, []mistake{
		{[]string{"serv"},
			"harness: unknown command \"serv\"; did you mean serve?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"server", "--addr", "127.0.0.1:0"},
			"harness: unknown command \"server\"; did you mean serve?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"gen", "--out", "dir"},
			"harness: unknown command \"gen\"; did you mean generate?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"schema", "Transaction"},
			"harness: unknown command \"schema\"; did you mean schemas?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"test", "--base-url", "http://127.0.0.1:8080"},
			"harness: unknown command \"test\"; did you mean conform?\nRun \"harness help\" to see all commands.\n"},
		{[]string{"frobnicate"},
			"harness: unknown command \"frobnicate\"\nRun \"harness help\" to see all commands.\n"},
		{[]string{"--addr", "127.0.0.1:0", "serve"},
			"harness: --addr is not a command; flags come after the command, as in \"harness serve --addr\"\nRun \"harness help\" to see all commands.\n"},
	})
}
