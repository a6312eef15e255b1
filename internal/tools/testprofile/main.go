// Command testprofile reads the events of go test -json on standard input
// and says where the time went: each package's time as it finishes, then
// the packages and the tests that took longest. A failed test's output is
// printed, and the exit code is 1 when a package failed or did not build.
//
//	go test -json ./... | go run ./internal/tools/testprofile -top 25
//
// make test-profile runs it over what make test runs.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// event is one line of go test -json (see go doc test2json).
type event struct {
	Time        time.Time
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Elapsed     float64 // seconds
	Output      string
	FailedBuild string
}

// result is the time of one test or package.
type result struct {
	pkg, test string
	action    string // pass, fail or skip
	// elapsed runs from the start of the test to its end, without its
	// wait for its turn after t.Parallel (paused): a parent's time holds
	// its subtests', parallel or not (go test's own figure for a parent
	// leaves its parallel subtests out).
	elapsed, paused time.Duration
}

// profile gathers the results of a stream of events.
type profile struct {
	tests, pkgs []result
	failed      []string // the failures' output, in order
	output      map[string][]string
	started     map[string]time.Time
	pausedAt    map[string]time.Time
	paused      map[string]time.Duration
	progress    io.Writer
}

func newProfile(progress io.Writer) *profile {
	return &profile{output: map[string][]string{}, started: map[string]time.Time{}, pausedAt: map[string]time.Time{}, paused: map[string]time.Duration{}, progress: progress}
}

func (p *profile) add(e event) {
	key := e.Package + " " + e.Test
	switch e.Action {
	case "output", "build-output":
		k := key
		if e.Action == "build-output" {
			k = "build " + e.ImportPath
		}
		p.output[k] = append(p.output[k], e.Output)
	case "run":
		p.started[key] = e.Time
	case "pause":
		p.pausedAt[key] = e.Time
	case "cont":
		if at, ok := p.pausedAt[key]; ok {
			p.paused[key] += e.Time.Sub(at)
			delete(p.pausedAt, key)
		}
	case "build-fail":
		p.failed = append(p.failed, fmt.Sprintf("--- build of %s failed\n%s", e.ImportPath, strings.Join(p.output["build "+e.ImportPath], "")))
	case "pass", "fail", "skip":
		r := result{pkg: e.Package, test: e.Test, action: e.Action, elapsed: seconds(e.Elapsed), paused: p.paused[key]}
		if at, ok := p.started[key]; ok && !e.Time.IsZero() && e.Test != "" {
			r.elapsed = e.Time.Sub(at) - r.paused
		}
		if e.Test == "" {
			p.pkgs = append(p.pkgs, r)
			fmt.Fprintf(p.progress, "%-4s %-60s %s\n", e.Action, e.Package, round(r.elapsed))
		} else {
			p.tests = append(p.tests, r)
		}
		if e.Action == "fail" {
			name := e.Package
			if e.Test != "" {
				name += " " + e.Test
			}
			p.failed = append(p.failed, fmt.Sprintf("--- %s failed\n%s", name, strings.Join(p.output[key], "")))
		}
		delete(p.output, key)
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func round(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// write prints the slowest packages and the top slowest tests.
func (p *profile) write(w io.Writer, top int) {
	slower := func(a, b result) int { return int(b.elapsed - a.elapsed) }
	pkgs, tests := slices.Clone(p.pkgs), slices.Clone(p.tests)
	slices.SortStableFunc(pkgs, slower)
	slices.SortStableFunc(tests, slower)
	var sum time.Duration
	for _, r := range pkgs {
		sum += r.elapsed
	}
	fmt.Fprintf(w, "\nPackages by time (%d, %s in all; packages run side by side):\n", len(pkgs), round(sum))
	for _, r := range pkgs {
		fmt.Fprintf(w, "  %8s  %-4s %s\n", round(r.elapsed), r.action, r.pkg)
	}
	fmt.Fprintf(w, "\nThe %d slowest tests (of %d; from start to end, the wait for a turn after t.Parallel left out; a parent's time holds its subtests'):\n", min(top, len(tests)), len(tests))
	for _, r := range tests[:min(top, len(tests))] {
		wait := ""
		if r.paused > 0 {
			wait = fmt.Sprintf(" (waiting %s)", round(r.paused))
		}
		fmt.Fprintf(w, "  %8s  %-4s %s %s%s\n", round(r.elapsed), r.action, short(r.pkg), r.test, wait)
	}
}

// short is an import path without the module's.
func short(pkg string) string {
	const module = "github.com/chaindata/harness/"
	return strings.TrimPrefix(pkg, module)
}

func main() {
	top := flag.Int("top", 25, "list the `N` slowest tests")
	flag.Parse()
	p := newProfile(os.Stdout)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Println(string(line)) // not an event: go vet's or go's own words
			continue
		}
		p.add(e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "testprofile: read: %v\n", err)
		os.Exit(1)
	}
	p.write(os.Stdout, *top)
	if len(p.failed) > 0 {
		fmt.Println()
		for _, f := range p.failed {
			fmt.Print(f)
		}
		fmt.Printf("testprofile: %d failures\n", len(p.failed))
		os.Exit(1)
	}
}
