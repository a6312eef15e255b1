// Command wirebench measures harness serve as a user runs it, with its
// default flags (the request log, the journal and the warnings on), against
// a bare net/http handler that answers each request with the bytes and
// headers the mock answered it, on the same path: a load tool drives each
// in turn, round after round, and wirebench prints each round's rates and
// their ratio with the machine's load, then the latency at one connection.
// make bench-wire runs it:
//
//	go build -o bin/wirebench ./internal/tools/wirebench
//	bin/wirebench -harness bin/harness -rounds 3 -duration 5s
//
// The load tool is wrk (Debian package wrk) with one thread, or where wrk
// is not on the PATH vegeta, through the command -vegeta gives. Arguments
// after the flags go to harness serve (such as --log-format none, to
// measure what the log costs). At the end the mock is stopped with SIGINT
// and its request log must hold a line for every answer the tool counted.
//
// wirebench -bare FILE is the bare handler's process, which wirebench
// starts itself.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintf(os.Stderr, "wirebench: %v\n", err)
		os.Exit(1)
	}
}

// options are wirebench's flags.
type options struct {
	harness, bare, tool, wrkPath, vegeta, only string
	rounds, conns                              int
	duration, latencyDuration, warmDuration    time.Duration
	serveArgs                                  []string
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("wirebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.harness, "harness", "bin/harness", "the harness binary whose serve is measured")
	fs.StringVar(&o.bare, "bare", "", "serve the answers saved in this file as the bare handler (wirebench starts this process itself)")
	fs.StringVar(&o.tool, "tool", "auto", "the load tool: wrk, vegeta, or auto (wrk when on the PATH, else vegeta)")
	fs.StringVar(&o.wrkPath, "wrk", "wrk", "the wrk command")
	fs.StringVar(&o.vegeta, "vegeta", "go run github.com/tsenart/vegeta/v12@v12.13.0", "the vegeta command, when wrk is not used")
	fs.StringVar(&o.only, "cases", "", "a regular expression: measure only the cases whose names it matches")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds of each case, each a run against the mock then one against the bare handler")
	fs.IntVar(&o.conns, "connections", 16, "connections of each round")
	fs.DurationVar(&o.duration, "duration", 5*time.Second, "length of each run of a round (whole seconds)")
	fs.DurationVar(&o.latencyDuration, "latency-duration", 5*time.Second, "length of the runs at one connection that measure the latency")
	fs.DurationVar(&o.warmDuration, "warm-duration", time.Second, "length of the untimed run against each server before a case's rounds")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.serveArgs = fs.Args()
	switch {
	case o.rounds < 1:
		return o, errors.New("-rounds must be at least 1")
	case o.conns < 1:
		return o, errors.New("-connections must be at least 1")
	case o.duration < time.Second || o.latencyDuration < time.Second || o.warmDuration < time.Second:
		return o, errors.New("-duration, -latency-duration and -warm-duration must be at least 1s")
	case o.tool != "auto" && o.tool != "wrk" && o.tool != "vegeta":
		return o, fmt.Errorf("-tool must be wrk, vegeta or auto, got %q", o.tool)
	}
	if _, err := regexp.Compile(o.only); err != nil {
		return o, fmt.Errorf("-cases: %w", err)
	}
	return o, nil
}

// chooseTool returns the load tool o asks for; auto is wrk when lookPath
// finds it, else vegeta, with a note saying so.
func chooseTool(o options, lookPath func(string) (string, error)) (loadTool, string, error) {
	useVegeta := func(note string) (loadTool, string, error) {
		command := strings.Fields(o.vegeta)
		if len(command) == 0 {
			return nil, "", errors.New("-vegeta is empty")
		}
		return vegeta{command}, note, nil
	}
	if o.tool == "vegeta" {
		return useVegeta("")
	}
	path, err := lookPath(o.wrkPath)
	switch {
	case err == nil:
		return wrk{path}, "", nil
	case o.tool == "wrk":
		return nil, "", fmt.Errorf("wrk: %w (apt-get install wrk)", err)
	}
	return useVegeta("wrk is not on the PATH (Debian: apt-get install wrk); vegeta instead, through " + o.vegeta)
}

// selected returns the cases whose names match only.
func selected(only string) []benchCase {
	re := regexp.MustCompile(only)
	var out []benchCase
	for _, c := range cases {
		if re.MatchString(c.name) {
			out = append(out, c)
		}
	}
	return out
}

func run(ctx context.Context, args []string, out, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if o.bare != "" {
		return serveBare(ctx, o.bare, out)
	}
	tool, note, err := chooseTool(o, exec.LookPath)
	if err != nil {
		return err
	}
	todo := selected(o.only)
	if len(todo) == 0 {
		return fmt.Errorf("-cases %q matches no case", o.only)
	}
	if note != "" {
		fmt.Fprintln(out, note)
	}
	dir, err := os.MkdirTemp("", "wirebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	serveArgs := append([]string{"serve", "--addr", "127.0.0.1:0"}, o.serveArgs...)
	logFile := filepath.Join(dir, "serve.log")
	mock, err := startProcess(ctx, logFile, o.harness, serveArgs...)
	if err != nil {
		return err
	}
	defer mock.kill()
	fmt.Fprintf(out, "%s %s on %s (request log in a file); %s, %d rounds of %v at %d connections, then %v at one, each run against the mock then the bare handler\n",
		o.harness, strings.Join(serveArgs, " "), mock.url, tool.name(), o.rounds, o.duration, o.conns, o.latencyDuration)

	client := &http.Client{Transport: &http.Transport{DisableCompression: true}, Timeout: time.Minute}
	var answers []answer
	for _, c := range todo {
		a, err := capture(client, mock.url, c.target)
		if err != nil {
			return err
		}
		answers = append(answers, a)
	}
	answersFile := filepath.Join(dir, "answers.json")
	if err := writeAnswers(answersFile, answers); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	bare, err := startProcess(ctx, filepath.Join(dir, "bare.log"), self, "-bare", answersFile)
	if err != nil {
		return err
	}
	defer bare.kill()
	for _, a := range answers {
		if err := sameAnswer(client, bare.url, a); err != nil {
			return err
		}
	}

	b := &bench{tool: tool, rounds: o.rounds, duration: o.duration, latencyDuration: o.latencyDuration,
		warmDuration: o.warmDuration, conns: o.conns, out: out, machine: machine,
		mockCPU: processCPU(mock.cmd.Process.Pid), bareCPU: processCPU(bare.cmd.Process.Pid)}
	var results []caseResult
	for i, c := range todo {
		r, err := b.measure(ctx, c, len(answers[i].Body), mock.url, bare.url)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	summary(out, results)

	// Every answer counted must have its line once the mock has stopped.
	if err := mock.interrupt(); err != nil {
		return fmt.Errorf("harness serve: %w", err)
	}
	if logOff(o.serveArgs) {
		fmt.Fprintln(out, "request log: off (--log-format none), not checked")
		return nil
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		return err
	}
	lines := countLogLines(data)
	counted := b.counted + int64(len(todo))
	fmt.Fprintf(out, "request log: %d lines for %d answers counted (the captures included)\n", lines, counted)
	return checkLog(lines, counted, b.runs, o.conns)
}

// logOff reports whether serve's arguments turn the request log off.
func logOff(args []string) bool {
	for i, a := range args {
		a = strings.TrimLeft(a, "-") // flag takes -name and --name
		if a == "log-format=none" || (a == "log-format" && i+1 < len(args) && args[i+1] == "none") {
			return true
		}
	}
	return false
}

// sameAnswer checks that the bare handler answers a's target with a's
// status, headers and body.
func sameAnswer(client *http.Client, base string, a answer) error {
	got, err := capture(client, base, a.Target)
	if err != nil {
		return fmt.Errorf("the bare handler: %w", err)
	}
	if got.Status != a.Status || string(got.Body) != string(a.Body) || fmt.Sprint(got.Header) != fmt.Sprint(a.Header) {
		return fmt.Errorf("the bare handler answers %s otherwise than the mock: %v %v against %v %v", a.Target, got.Status, got.Header, a.Status, a.Header)
	}
	return nil
}

// processCPU returns a function reading the CPU time (user and system)
// process pid has used, from /proc (Linux; elsewhere unknown).
func processCPU(pid int) func() (time.Duration, bool) {
	file := fmt.Sprintf("/proc/%d/stat", pid)
	return func() (time.Duration, bool) {
		data, err := os.ReadFile(file)
		if err != nil {
			return 0, false
		}
		return statCPU(string(data))
	}
}

// statCPU reads the CPU time of a /proc/PID/stat: its utime and stime
// (fields 14 and 15), in ticks of 1/100 s (USER_HZ, 100 on Linux).
func statCPU(stat string) (time.Duration, bool) {
	// The command name, field 2, is in parentheses and may hold spaces.
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:]) // from field 3
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// process is a server started by wirebench.
type process struct {
	cmd  *exec.Cmd
	url  string
	done chan error
}

// startProcess starts name with args, its standard error into the file
// errFile, and waits (up to 5 minutes) for the http:// URL it prints on
// standard output when it serves.
func startProcess(ctx context.Context, errFile, name string, args ...string) (*process, error) {
	stderr, err := os.Create(errFile)
	if err != nil {
		return nil, err
	}
	defer stderr.Close()
	cmd := exec.Command(name, args...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{cmd: cmd, done: make(chan error, 1)}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 && !sent {
				urls <- strings.Fields(sc.Text()[i:])[0]
				sent = true
			}
		}
		p.done <- cmd.Wait()
	}()
	timer := time.NewTimer(5 * time.Minute)
	defer timer.Stop()
	select {
	case p.url = <-urls:
		return p, nil
	case err := <-p.done:
		data, _ := os.ReadFile(errFile)
		return nil, fmt.Errorf("%s %s ended before serving (%v): %s", name, strings.Join(args, " "), err, data)
	case <-timer.C:
	case <-ctx.Done():
	}
	cmd.Process.Kill()
	return nil, fmt.Errorf("%s %s did not serve", name, strings.Join(args, " "))
}

// interrupt stops the process with SIGINT and waits for it to end.
func (p *process) interrupt() error {
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		return err
	}
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(time.Minute):
		return errors.New("still running a minute after SIGINT")
	}
}

// kill ends the process, if it still runs.
func (p *process) kill() {
	p.cmd.Process.Kill()
}
