package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProfile(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(seconds(s)) }
	const pkg = "github.com/chaindata/harness/mockserver"
	var progress bytes.Buffer
	p := newProfile(&progress)
	for _, e := range []event{
		{Time: at(0), Action: "run", Package: pkg, Test: "TestFast"},
		{Time: at(0.5), Action: "pass", Package: pkg, Test: "TestFast", Elapsed: 0.5},
		{Time: at(0), Action: "run", Package: pkg, Test: "TestWaits"},
		{Time: at(0), Action: "pause", Package: pkg, Test: "TestWaits"},
		{Time: at(3), Action: "cont", Package: pkg, Test: "TestWaits"},
		{Time: at(5), Action: "pass", Package: pkg, Test: "TestWaits", Elapsed: 2},
		{Time: at(0), Action: "run", Package: pkg, Test: "TestParent"},
		{Time: at(0), Action: "run", Package: pkg, Test: "TestParent/sub"},
		{Time: at(0), Action: "pause", Package: pkg, Test: "TestParent/sub"},
		{Time: at(0.1), Action: "cont", Package: pkg, Test: "TestParent/sub"},
		{Time: at(4), Action: "pass", Package: pkg, Test: "TestParent/sub", Elapsed: 3.9},
		{Time: at(4), Action: "pass", Package: pkg, Test: "TestParent", Elapsed: 0.1},
		{Time: at(5), Action: "output", Package: pkg, Test: "TestBroken", Output: "    broken_test.go:9: want 1, got 2\n"},
		{Time: at(6), Action: "fail", Package: pkg, Test: "TestBroken", Elapsed: 1.25},
		{Time: at(7), Action: "fail", Package: pkg, Elapsed: 7},
		{Action: "build-output", ImportPath: "example.com/x [example.com/x.test]", Output: "x.go:1: syntax error\n"},
		{Action: "build-fail", ImportPath: "example.com/x [example.com/x.test]"},
	} {
		p.add(e)
	}
	var out bytes.Buffer
	p.write(&out, 4)
	got := out.String()
	for _, want := range []string{
		"    7.0s  fail " + pkg,
		"The 4 slowest tests (of 5;",
		"4.0s  pass mockserver TestParent\n",
		"3.9s  pass mockserver TestParent/sub (waiting 0.1s)",
		"2.0s  pass mockserver TestWaits (waiting 3.0s)",
		"1.2s  fail mockserver TestBroken\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestFast") {
		t.Errorf("the profile lists more than the 4 slowest tests:\n%s", got)
	}
	if !strings.Contains(progress.String(), "fail "+pkg) {
		t.Errorf("no progress line for the package: %q", progress.String())
	}
	if len(p.failed) != 3 || !strings.Contains(p.failed[0], "want 1, got 2") || !strings.Contains(p.failed[2], "syntax error") {
		t.Errorf("failures %q: want the test's, the package's and the build's, with their output", p.failed)
	}
}
