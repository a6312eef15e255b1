package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLine holds harness version to one line: the stamped version,
// else the module's; the commit when the build recorded one; the Go
// version and the platform.
func TestVersionLine(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	vcs := []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "fbb1d3c8e9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"},
		{Key: "vcs.time", Value: "2026-11-26T03:03:00Z"},
		{Key: "vcs.modified", Value: "false"},
	}
	dirty := append(vcs[:len(vcs)-1:len(vcs)-1], debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	tests := []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"stamped by make dist", "v1.2.0-3-gfbb1d3c", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"harness v1.2.0-3-gfbb1d3c go1.26.8 " + platform},
		{"go install @version", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}},
			"harness v1.2.0 go1.26.8 " + platform},
		{"go build in a checkout", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261126030300-fbb1d3c8e9a0"}, Settings: vcs},
			"harness v0.0.0-20261126030300-fbb1d3c8e9a0 (commit fbb1d3c8e9a0, 2026-11-26T03:03:00Z) go1.26.8 " + platform},
		{"uncommitted changes", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: dirty},
			"harness (devel) (commit fbb1d3c8e9a0, modified, 2026-11-26T03:03:00Z) go1.26.8 " + platform},
		{"stamped, with the commit", "v1.2.0", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			"harness v1.2.0 (commit fbb1d3c8e9a0, 2026-11-26T03:03:00Z) go1.26.8 " + platform},
		{"go run: no version at all", "", &debug.BuildInfo{GoVersion: "go1.26.8"},
			"harness (devel) go1.26.8 " + platform},
		{"no build information", "", nil,
			"harness (devel) " + runtime.Version() + " " + platform},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionLine(tc.stamped, tc.info); got != tc.want {
				t.Errorf("versionLine:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestVersionCommand: harness version and harness --version print the same
// one line; anything after them is a usage error.
func TestVersionCommand(t *testing.T) {
	var first string
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errOut := runCmd(t, args...)
		if code != exitOK || errOut != "" {
			t.Errorf("harness %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
		}
		if !strings.HasPrefix(out, "harness ") || !strings.HasSuffix(out, " "+runtime.GOOS+"/"+runtime.GOARCH+"\n") || strings.Count(out, "\n") != 1 {
			t.Errorf("harness %s printed %q, want one line: harness VERSION ... GOOS/GOARCH", strings.Join(args, " "), out)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("harness %s printed %q, harness version %q", strings.Join(args, " "), out, first)
		}
	}
	wantUsageError(t, []string{"version", "now"}, `harness version: unexpected argument "now"`)
	wantUsageError(t, []string{"--version", "--short"}, "harness version: unknown flag --short")
}
