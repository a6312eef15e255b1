package main

import (
	"strings"
	"testing"
)

// TestHelpCommand: "harness help CMD" is "harness CMD --help", for every
// command; "harness help" alone is the top-level usage, which points to
// it; an unknown command is a usage error naming the nearest.
func TestHelpCommand(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, "help", c.name)
			wantCode, wantOut, wantErr := runCmd(t, c.name, "--help")
			if code != wantCode || out != wantOut || errOut != wantErr {
				t.Errorf("harness help %s: exit %d, stdout %q, stderr %.80q...; harness %s --help: exit %d, stdout %q, stderr %.80q...",
					c.name, code, out, errOut, c.name, wantCode, wantOut, wantErr)
			}
			if code != exitOK || !strings.HasPrefix(errOut, "Usage: harness "+c.name) {
				t.Errorf("harness help %s: exit %d, stderr %.80q; want 0 and the command's usage", c.name, code, errOut)
			}
		})
	}
	code, out, _ := runCmd(t, "help")
	if code != exitOK || !strings.Contains(out, `Run "harness help <command>"`) || !strings.Contains(out, "completion") {
		t.Errorf("harness help: exit %d, %q", code, out)
	}
	if code, out2, _ := runCmd(t, "help", "help"); code != exitOK || out2 != out {
		t.Errorf("harness help help: exit %d, want the top-level usage", code)
	}
	wantUsageError(t, []string{"help", "serv"}, "harness: unknown command \"serv\"; did you mean serve?")
}
