package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMain makes the test binary, run again with WIREBENCH_TEST set, one of
// the processes wirebench drives, so that its whole run is tested without
// harness or wrk: "wirebench" is wirebench itself (its bare handler),
// "harness" a mock that logs each request as harness serve does, "wrk" a
// load tool that sends a few requests and reports them as wrk does.
func TestMain(m *testing.M) {
	switch os.Getenv("WIREBENCH_TEST") {
	case "wirebench":
		main()
		os.Exit(0)
	case "harness":
		os.Exit(fakeHarness(os.Args[1:]))
	case "wrk":
		os.Exit(fakeWrk(os.Args[1:]))
	case "vegeta":
		os.Exit(fakeVegeta(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeHarness serves any target with a small JSON page until SIGINT,
// logging each request on standard error; with --log-format none it logs
// nothing, and with --drop-line N it leaves out the N-th request's line.
func fakeHarness(args []string) int {
	logged := !slices.Contains(args, "none")
	drop := int64(-1)
	if i := slices.Index(args, "--drop-line"); i >= 0 {
		fmt.Sscan(args[i+1], &drop)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	var n atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := `{"page":"` + r.URL.RawQuery + `"}`
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Header().Set("X-Block-Height", "250000")
		io.WriteString(w, body)
		if i := n.Add(1); logged && i != drop {
			fmt.Fprintf(os.Stderr, "time=x level=INFO msg=request method=GET path=%s status=200\n", r.URL.Path)
		}
	})}
	fmt.Println("http://" + ln.Addr().String()) // the URL alone, at the start of its line
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	go srv.Serve(ln)
	<-stop
	srv.Close()
	return 0
}

// fakeWrk sends ten requests to its URL, one after another, and reports
// them as wrk does.
func fakeWrk(args []string) int {
	if err := sendTen(args[len(args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("  Latency Distribution\n     50%%  100.00us\n     99%%    1.00ms\n  10 requests in 1.00s, 1.00KB read\nRequests/sec:     10.00\n")
	return 0
}

// sendTen sends ten GETs of url, one after another, each to be a 200.
func sendTen(url string) error {
	for range 10 {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	return nil
}

// fakeVegeta is vegeta's attack, which sends ten requests to the target
// on its input and writes their count, and its report, which reads the
// count and reports it as vegeta report -type=json does.
func fakeVegeta(args []string) int {
	in, _ := io.ReadAll(os.Stdin)
	if args[0] == "report" {
		fmt.Printf(`{"latencies":{"50th":100000,"99th":1000000},"requests":%s,"throughput":%s,"status_codes":{"200":%s}}`, in, in, in)
		return 0
	}
	if err := sendTen(strings.TrimPrefix(strings.TrimSpace(string(in)), "GET ")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Print(10)
	return 0
}

// wirebenchRun runs wirebench with args, the test binary standing for
// itself, harness serve and wrk.
func wirebenchRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	t.Setenv("WIREBENCH_TEST", "wirebench")
	dir := t.TempDir()
	for _, name := range []string{"harness", "wrk", "vegeta"} {
		script := fmt.Sprintf("#!/bin/sh\nWIREBENCH_TEST=%s exec %q \"$@\"\n", name, os.Args[0])
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self := filepath.Join(dir, "wirebench")
	if err := os.Symlink(os.Args[0], self); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"-harness", filepath.Join(dir, "harness"), "-wrk", filepath.Join(dir, "wrk"),
		"-vegeta", filepath.Join(dir, "vegeta"), "-rounds", "2", "-duration", "1s", "-latency-duration", "1s", "-warm-duration", "1s"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestWirebenchRuns runs wirebench whole against a fake harness and a fake
// wrk: it measures the cases asked for against the mock and the bare
// handler, prints the rounds and the summary, and checks the mock's log
// holds a line for every answer counted; a log that lost one fails it.
func TestWirebenchRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes for a few seconds")
	}
	out, err := wirebenchRun(t, "-cases", "^(parameters|games)$")
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "harness serve --addr 127.0.0.1:0 on http://127.0.0.1:") || strings.Contains(out, "vegeta") {
		t.Errorf("wrk found: the output begins otherwise than with the mock's command, or says vegeta:\n%s", out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^parameters: GET /api/v2/network/parameters\?pagination.first=100 \(\d+ bytes\)$`),
		regexp.MustCompile(`(?m)^  round 2: mock 10 req/s, bare 10 req/s: 1.000(; CPU per answer .+)? \(machine: \d+ cores, load .+\)$`),
		regexp.MustCompile(`(?m)^games +1\.00 +0\.85 +10 +10 `),
		// Two cases of four runs against the mock (warm-up, two rounds,
		// one connection), ten answers each, and the two captures.
		regexp.MustCompile(`(?m)^request log: 82 lines for 82 answers counted \(the captures included\)$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output does not match %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "snapshots") {
		t.Errorf("measured a case not asked for:\n%s", out)
	}

	// The later runs take one round: 3 runs of ten answers, and the capture.
	out, err = wirebenchRun(t, "-cases", "^snapshots$", "-wrk", "no-such-wrk", "-rounds", "1")
	if err != nil || !strings.HasPrefix(out, "wrk is not on the PATH (Debian: apt-get install wrk); vegeta instead, through ") ||
		!strings.Contains(out, "request log: 31 lines for 31 answers counted") {
		t.Errorf("vegeta where wrk is missing: %v:\n%s", err, out)
	}

	out, err = wirebenchRun(t, "-cases", "^parameters$", "-rounds", "1", "--", "--drop-line", "7")
	if err == nil || !strings.Contains(out, "the request log holds 30 lines for 31 answers counted: 1 lost") {
		t.Errorf("a lost line: %v:\n%s", err, out)
	}
	out, err = wirebenchRun(t, "-cases", "^parameters$", "-rounds", "1", "--", "--log-format", "none")
	if err != nil || !strings.Contains(out, "request log: off (--log-format none), not checked") {
		t.Errorf("no log: %v:\n%s", err, out)
	}
}

// TestBareProcess checks the bare handler's process serves the answers
// saved, prints its URL, and stops at SIGINT.
func TestBareProcess(t *testing.T) {
	t.Setenv("WIREBENCH_TEST", "wirebench")
	dir := t.TempDir()
	file := filepath.Join(dir, "answers.json")
	a := answer{Target: "/x?y=1", Status: 200, Header: http.Header{"Content-Length": {"2"}, "X-A": {"b"}}, Body: []byte("ok")}
	if err := writeAnswers(file, []answer{a}); err != nil {
		t.Fatal(err)
	}
	p, err := startProcess(context.Background(), filepath.Join(dir, "bare.log"), os.Args[0], "-bare", file)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	if err := sameAnswer(http.DefaultClient, p.url, a); err != nil {
		t.Error(err)
	}
	if err := p.interrupt(); err != nil {
		t.Errorf("the bare handler after SIGINT: %v", err)
	}
	select {
	case <-p.done: // interrupt leaves the process's end there, once it has come
	default:
		t.Error("interrupt returned before the process ended")
	}
	if _, err := startProcess(context.Background(), filepath.Join(dir, "bad.log"), os.Args[0], "-bare", filepath.Join(dir, "none.json")); err == nil ||
		!strings.Contains(err.Error(), "ended before serving") || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("a bare handler without its answers: %v", err)
	}
}

// TestParseOptions checks the flags, their bounds, and that what follows
// them goes to harness serve.
func TestParseOptions(t *testing.T) {
	o, err := parseOptions([]string{"-rounds", "4", "-connections", "8", "-duration", "2s", "-cases", "games", "--", "--log-format", "none"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.rounds != 4 || o.conns != 8 || o.duration != 2*time.Second || o.only != "games" || o.harness != "bin/harness" ||
		o.latencyDuration != 5*time.Second || o.warmDuration != time.Second || o.tool != "auto" || !slices.Equal(o.serveArgs, []string{"--log-format", "none"}) {
		t.Errorf("options %+v", o)
	}
	for _, bad := range [][]string{
		{"-rounds", "0"}, {"-connections", "0"}, {"-duration", "999ms"}, {"-latency-duration", "0s"}, {"-warm-duration", "10ms"},
		{"-tool", "ab"}, {"-cases", "("}, {"-nope"},
	} {
		if _, err := parseOptions(bad, io.Discard); err == nil {
			t.Errorf("parseOptions(%q) took it", bad)
		}
	}
	if err := run(context.Background(), []string{"-cases", "^nothing$"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "matches no case") {
		t.Errorf("no case: %v", err)
	}
	if err := run(context.Background(), []string{"-h"}, io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestChooseTool checks which load tool is used: wrk when asked for or
// found, vegeta when asked for or when wrk is not found (saying so).
func TestChooseTool(t *testing.T) {
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	o := options{tool: "auto", wrkPath: "wrk", vegeta: "go run vegeta@v12"}
	tests := []struct {
		tool     string
		lookPath func(string) (string, error)
		want     loadTool
		note     bool
		fails    bool
	}{
		{"auto", found, wrk{"/usr/bin/wrk"}, false, false},
		{"auto", missing, vegeta{[]string{"go", "run", "vegeta@v12"}}, true, false},
		{"wrk", found, wrk{"/usr/bin/wrk"}, false, false},
		{"wrk", missing, nil, false, true},
		{"vegeta", found, vegeta{[]string{"go", "run", "vegeta@v12"}}, false, false},
	}
	for _, tc := range tests {
		o.tool = tc.tool
		got, note, err := chooseTool(o, tc.lookPath)
		if (err != nil) != tc.fails || fmt.Sprint(got) != fmt.Sprint(tc.want) || (note != "") != tc.note {
			t.Errorf("%s: %v %q %v, want %v, a note %v, failing %v", tc.tool, got, note, err, tc.want, tc.note, tc.fails)
		}
	}
	o.vegeta = " "
	for _, tc := range []struct {
		tool     string
		lookPath func(string) (string, error)
		ok       bool
	}{{"vegeta", found, false}, {"auto", missing, false}, {"auto", found, true}, {"wrk", found, true}} {
		o.tool = tc.tool
		if _, _, err := chooseTool(o, tc.lookPath); (err == nil) != tc.ok {
			t.Errorf("%s with an empty -vegeta: %v, want ok %v", tc.tool, err, tc.ok)
		}
	}
}

// TestSelectedAndLogOff checks the cases a pattern selects, and which
// arguments of serve turn its log off.
func TestSelectedAndLogOff(t *testing.T) {
	var names []string
	for _, c := range selected("transactions") {
		names = append(names, c.name)
	}
	if !slices.Equal(names, []string{"transactions", "transactions-cmdtypes"}) {
		t.Errorf("selected %q", names)
	}
	if len(selected("")) != len(cases) {
		t.Error("an empty pattern selects every case")
	}
	for args, want := range map[string]bool{
		"--log-format none": true, "-log-format none": true, "--log-format=none": true, "--log-format json": false,
		"--log-format": false, "--scale 2": false, "": false,
	} {
		if got := logOff(strings.Fields(args)); got != want {
			t.Errorf("logOff(%q) = %v, want %v", args, got, want)
		}
	}
}

// TestStatCPU checks a process's CPU time is read from /proc/PID/stat,
// whatever its command's name holds, and that this process's is known.
func TestStatCPU(t *testing.T) {
	for _, stat := range []string{
		"4242 (wire bench) (x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 9 0 1000 0 0\n",
		"4242 (w) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75", // no more than utime and stime
	} {
		if got, ok := statCPU(stat); !ok || got != 3250*time.Millisecond {
			t.Errorf("statCPU(%q) = %v, %v; want 3.25s", stat, got, ok)
		}
	}
	for _, bad := range []string{"", "4242 (x S 1", "4242 (x) S 1 2 3", "4242 (x) S 1 4242 4242 0 -1 0 0 0 0 0 a 75", "4242 (x) S 1 4242 4242 0 -1 0 0 0 0 0 250 b"} {
		if _, ok := statCPU(bad); ok {
			t.Errorf("statCPU(%q) read a time", bad)
		}
	}
	if _, ok := processCPU(os.Getpid())(); !ok {
		t.Error("this process's CPU time is unknown")
	}
	if _, ok := processCPU(-1)(); ok {
		t.Error("a process that does not exist has a CPU time")
	}
}
