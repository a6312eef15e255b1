package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is the release the binary was built as, stamped at build time:
//
//	go build -ldflags "-X main.version=v1.2.0" ./cmd/harness
//
// (make dist stamps the output of git describe). Empty, the version comes
// from the build information Go records: the module version of go install
// MODULE@VERSION, or the pseudo-version of the commit built.
var version string

// runVersion prints the version line: harness version (or --version).
func runVersion(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "version", "")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, versionLine(version, info))
	return exitOK
}

// versionLine is the one line harness version prints:
//
//	harness VERSION (commit REVISION[, modified], TIME) GOVERSION GOOS/GOARCH
//
// stamped is the version given at build time ("" for none); info is the
// build information (nil when the binary has none). The commit part is
// left out when the build recorded no VCS information (a build outside
// a checkout, or with -buildvcs=false).
func versionLine(stamped string, info *debug.BuildInfo) string {
	v := stamped
	goVersion := runtime.Version()
	var rev, at string
	modified := false
	if info != nil {
		if v == "" {
			v = info.Main.Version
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "harness %s", v)
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		fmt.Fprintf(&b, " (commit %s", rev)
		if modified {
			b.WriteString(", modified")
		}
		if at != "" {
			b.WriteString(", " + at)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, " %s %s/%s", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
