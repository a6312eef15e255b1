package selftest

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/chaindata/harness/conformance"
	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/conformance/report"
	"github.com/chaindata/harness/conformance/rule"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// Bounds of the self-tests.
const (
	// runTimeout bounds one run of the suite against one server.
	runTimeout = 6 * time.Minute
	// parallelRuns is how many suite runs go at once.
	parallelRuns = 2
	// cleanBudget is the time the full suite may take against the default
	// mock.
	cleanBudget = 90 * time.Second
)

// harnessBin is the harness binary built once for the package's tests.
var harnessBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "conformance-selftest-")
	if err != nil {
		return "", fmt.Errorf("temp dir: %w", err)
	}
	bin := filepath.Join(dir, "harness")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/harness")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/harness: %w\n%s", err, out)
	}
	return bin, nil
})

// defaultWorld is the default world, shared by every server.
var defaultWorld = sync.OnceValues(func() (*world.World, error) {
	w, err := world.Generate(world.Options{Seed: 1, Scale: 1})
	if err != nil {
		return nil, fmt.Errorf("generate the default world: %w", err)
	}
	return w, nil
})

// defaultStore is the default world's store, shared by every server.
var defaultStore = sync.OnceValues(func() (*store.Store, error) {
	w, err := defaultWorld()
	if err != nil {
		return nil, err
	}
	s, err := store.New(w)
	if err != nil {
		return nil, fmt.Errorf("store the default world: %w", err)
	}
	return s, nil
})

// Rows the earlier world lacks at the newest end of each listing that keeps
// growing on a live network.
const (
	newSnapshots    = 5
	newRotations    = 5
	newTransactions = 40
)

// earlierStore is the default world as it was a little earlier: without its
// newest snapshots, key rotations and transactions.
var earlierStore = sync.OnceValues(func() (*store.Store, error) {
	w, err := defaultWorld()
	if err != nil {
		return nil, err
	}
	early := *w
	if len(w.Snapshots) <= newSnapshots || len(w.KeyRotations) <= newRotations || len(w.Transactions) <= newTransactions {
		return nil, fmt.Errorf("the default world is too small to grow (or its transactions are lazy)")
	}
	early.Snapshots = w.Snapshots[:len(w.Snapshots)-newSnapshots]
	early.KeyRotations = w.KeyRotations[:len(w.KeyRotations)-newRotations]
	early.Transactions = w.Transactions[:len(w.Transactions)-newTransactions]
	s, err := store.New(&early)
	if err != nil {
		return nil, fmt.Errorf("store the earlier world: %w", err)
	}
	return s, nil
})

// catalogue is the suite's rules (conformance.Rules), listed by TestMain.
var catalogue struct {
	rules []rule.Rule
	err   error
}

// suiteRules returns the suite's rules or fails the test. The tests take
// them from here, never from conformance.Rules, which exits the process
// once -parallel is set.
func suiteRules(t *testing.T) []rule.Rule {
	t.Helper()
	if catalogue.err != nil {
		t.Fatal(catalogue.err)
	}
	return catalogue.rules
}

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		os.Exit(serveRuns(os.Stdin, os.NewFile(3, "replies")))
	}
	flag.Parse()
	// The rules, listed before -parallel is set: Ginkgo refuses to preview
	// the suite (and exits) once it is.
	catalogue.rules, catalogue.err = conformance.Rules()
	// The runs are bounded by the workers and the subprocess limiter, not
	// by -parallel (GOMAXPROCS): a test whose run waits on the clock must
	// not hold back the others.
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(4*parallelRuns))
	}
	code := m.Run()
	stopWorkers()
	if bin, err := harnessBin(); err == nil {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

// server starts the mock, configured and wrapped by the defect (zero: the
// clean mock), on a free port of 127.0.0.1.
func server(t *testing.T, d defect) *httptest.Server {
	t.Helper()
	if d.start != nil {
		return d.start(t)
	}
	s, err := defaultStore()
	if err != nil {
		t.Fatal(err)
	}
	var cfg mockserver.Config
	if d.config != nil {
		d.config(&cfg)
	}
	var h http.Handler = mockserver.New(cfg, s)
	if d.wrap != nil {
		h = d.wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// growingServer serves the earlier world for the first requests to each
// listing and the full world after them, as a live network gains rows while
// the suite walks it.
func growingServer(t *testing.T, switchAfter int) *httptest.Server {
	t.Helper()
	full, err := defaultStore()
	if err != nil {
		t.Fatal(err)
	}
	early, err := earlierStore()
	if err != nil {
		t.Fatal(err)
	}
	before, after := mockserver.New(mockserver.Config{}, early), mockserver.New(mockserver.Config{}, full)
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		n := seen[r.URL.Path]
		mu.Unlock()
		if n <= switchAfter {
			before.ServeHTTP(w, r)
			return
		}
		after.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// result is what one run of the suite gave.
type result struct {
	exitCode int
	output   string
	elapsed  time.Duration
	report   types.Report
	json     []byte
	junit    []byte
	html     []byte
}

func (r result) specs() []types.SpecReport {
	var out []types.SpecReport
	for _, s := range r.report.SpecReports {
		if s.LeafNodeType == types.NodeTypeIt {
			out = append(out, s)
		}
	}
	return out
}

// ran is the rules the run ran: those its label filter selected.
func (r result) ran() []types.SpecReport {
	var out []types.SpecReport
	for _, s := range r.specs() {
		if s.State.Is(types.SpecStatePassed | types.SpecStateFailureStates) {
			out = append(out, s)
		}
	}
	return out
}

func (r result) failed() []types.SpecReport {
	var out []types.SpecReport
	for _, s := range r.specs() {
		if s.State.Is(types.SpecStateFailureStates) {
			out = append(out, s)
		}
	}
	return out
}

// fullText is a spec's containers and text, as Ginkgo prints them.
func fullText(s types.SpecReport) string {
	return strings.Join(append(slices.Clone(s.ContainerHierarchyTexts), s.LeafNodeText), " ")
}

// A run of the suite goes one of two ways. Wherever its verdicts are what
// a test checks, it runs in a worker: this test binary started again as a
// process of its own (workerEnv), which runs the suite in-process
// (conformance.Run) run after run, writing the reports harness conform
// writes. Ginkgo runs one suite at a time in a process, so parallelRuns
// workers run side by side; a worker sets up what its runs share (the
// compiled schemas, a grown heap) once, not once a run. Where the command
// itself is part of what a test checks (its exit codes, the traffic line
// it prints, the flags it parses), or where the clock paces the run rather
// than the CPU (rate limits, slow answers, waits for growth), the harness
// binary runs as "harness conform" in a subprocess, at most parallelRuns
// at once, beside the workers' runs. The servers run in this process
// either way.

// workerEnv set to 1 makes the test binary a worker: it reads runJobs on
// standard input and writes a runReply for each to file descriptor 3.
const workerEnv = "SELFTEST_WORKER"

// runJob is one run a worker is asked for: harness conform's flags, and
// the directory the reports go to.
type runJob struct {
	Args []string `json:"args"`
	Dir  string   `json:"dir"`
}

// runReply is how a run went: the exit code harness conform would give
// (0 passed, 1 failed), the report and summary it printed, and its time;
// Problem says why the suite could not run.
type runReply struct {
	ExitCode int           `json:"exitCode"`
	Output   string        `json:"output"`
	Elapsed  time.Duration `json:"elapsed"`
	Problem  string        `json:"problem,omitempty"`
}

// serveRuns is a worker's life: one run per job read from jobs, one reply
// each written to replies, until jobs ends.
func serveRuns(jobs io.Reader, replies io.Writer) int {
	dec, enc := json.NewDecoder(jobs), json.NewEncoder(replies)
	for {
		var job runJob
		if err := dec.Decode(&job); err == io.EOF {
			return 0
		} else if err != nil {
			fmt.Fprintf(os.Stderr, "selftest worker: read a job: %v\n", err)
			return 1
		}
		if err := enc.Encode(runInProcess(job)); err != nil {
			fmt.Fprintf(os.Stderr, "selftest worker: write a reply: %v\n", err)
			return 1
		}
	}
}

// runInProcess runs the suite in this process as harness conform would
// with job's flags, its reports written to job.Dir.
func runInProcess(job runJob) runReply {
	cfg, opts, err := runArgs(job.Args)
	if err != nil {
		return runReply{Problem: err.Error()}
	}
	opts.JSONReportFile, opts.JUnitFile, opts.HTMLReportFile = reportFiles(job.Dir)
	var out bytes.Buffer
	opts.Output = &out
	bounded := cfg.RunTimeout == 0
	if bounded {
		cfg.RunTimeout = runTimeout
	}
	start := time.Now()
	summary, err := conformance.Run(cfg, opts)
	r := runReply{Elapsed: time.Since(start), Output: out.String()}
	switch {
	case summary == nil:
		r.Problem = fmt.Sprintf("the suite did not run: %v", err)
	case bounded && summary.Stopped != "":
		r.Problem = fmt.Sprintf("the suite did not finish within %s: %s", runTimeout, summary.Stopped)
	case err != nil || !summary.Passed():
		r.ExitCode = 1 // as harness conform exits when a rule failed or the run could not be judged
	}
	if err != nil {
		r.Output += "\n" + err.Error()
	}
	return r
}

// runArgs reads harness conform's flags as the command does.
func runArgs(args []string) (config.Config, conformance.RunOptions, error) {
	var cfg config.Config
	var opts conformance.RunOptions
	fs := flag.NewFlagSet("harness conform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config.RegisterFlags(fs, &cfg)
	fs.StringVar(&opts.LabelFilter, "label-filter", "", "")
	waivers := fs.String("waivers", "", "")
	fs.BoolVar(&opts.FailOnSkip, "fail-on-skip", false, "")
	fs.BoolVar(&opts.Verbose, "v", false, "")
	if err := fs.Parse(args); err != nil {
		return cfg, opts, fmt.Errorf("harness conform %q: %w", args, err)
	}
	if fs.NArg() > 0 {
		return cfg, opts, fmt.Errorf("harness conform %q: unexpected argument %q", args, fs.Arg(0))
	}
	if *waivers != "" {
		ws, err := conformance.LoadWaivers(*waivers)
		if err != nil {
			return cfg, opts, err
		}
		opts.Waivers = ws
	}
	return cfg, opts, nil
}

// worker is a worker process and the pipes to it.
type worker struct {
	cmd     *exec.Cmd
	jobs    io.WriteCloser
	replies *json.Decoder
	stderr  *bytes.Buffer
	// failed says why the worker could not start.
	failed error
}

// idle holds the idle workers; they start on first use.
var (
	workersOnce sync.Once
	idle        = make(chan *worker, parallelRuns)
	startedMu   sync.Mutex
	started     []*worker
)

// addWorker starts a worker and makes it idle; when it cannot start, the
// next test to take it from idle fails saying why.
func addWorker() {
	w, err := startWorker()
	if err != nil {
		w = &worker{failed: err}
	} else {
		startedMu.Lock()
		started = append(started, w)
		startedMu.Unlock()
	}
	idle <- w
}

func startWorker() (*worker, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("the test binary: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("a pipe to the worker: %w", err)
	}
	defer pw.Close()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	cmd.ExtraFiles = []*os.File{pw}
	w := &worker{cmd: cmd, replies: json.NewDecoder(pr), stderr: &bytes.Buffer{}}
	cmd.Stderr = w.stderr
	if w.jobs, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("a pipe to the worker: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start a worker: %w", err)
	}
	return w, nil
}

// stopWorkers ends the workers: each stops once its jobs end.
func stopWorkers() {
	startedMu.Lock()
	defer startedMu.Unlock()
	for _, w := range started {
		w.jobs.Close()
		w.cmd.Wait()
	}
}

// conform runs the suite in a worker against baseURL with reports, as
// "harness conform --base-url baseURL args..." would: args are harness
// conform's flags, and the exit code is the one it would give.
func conform(t *testing.T, baseURL string, args ...string) result {
	t.Helper()
	workersOnce.Do(func() {
		for range parallelRuns {
			addWorker()
		}
	})
	job := runJob{Args: append([]string{"--base-url", baseURL}, args...), Dir: t.TempDir()}
	w := <-idle
	if w.failed != nil {
		idle <- w
		t.Fatalf("selftest worker: %v", w.failed)
	}
	reply, err := w.run(job)
	if err != nil {
		// A worker that failed gets no other run: another takes its place.
		w.cmd.Process.Kill()
		go addWorker()
		t.Fatalf("selftest worker: %v\n%s", err, tail(w.stderr.String()))
	}
	idle <- w
	if reply.Problem != "" {
		t.Fatalf("%s\n%s", reply.Problem, tail(reply.Output))
	}
	r := result{exitCode: reply.ExitCode, output: reply.Output, elapsed: reply.Elapsed}
	readReports(t, job.Dir, &r)
	return r
}

// run asks the worker for one run and waits for its reply, at most a
// minute longer than a run may take.
func (w *worker) run(job runJob) (runReply, error) {
	if err := json.NewEncoder(w.jobs).Encode(job); err != nil {
		return runReply{}, fmt.Errorf("send a job: %w", err)
	}
	type answer struct {
		r   runReply
		err error
	}
	got := make(chan answer, 1)
	go func() {
		var a answer
		a.err = w.replies.Decode(&a.r)
		got <- a
	}()
	select {
	case a := <-got:
		if a.err != nil {
			return runReply{}, fmt.Errorf("read a reply: %w", a.err)
		}
		return a.r, nil
	case <-time.After(runTimeout + time.Minute):
		w.cmd.Process.Kill()
		return runReply{}, fmt.Errorf("no reply within %s", runTimeout+time.Minute)
	}
}

// limiter bounds the subprocess runs that go at once.
var limiter = make(chan struct{}, parallelRuns)

// reportFiles are the reports a run writes in dir: JSON, JUnit and HTML.
func reportFiles(dir string) (jsonFile, junitFile, htmlFile string) {
	return filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "report.html")
}

// conformBinary runs "harness conform" in a subprocess against baseURL with
// reports.
func conformBinary(t *testing.T, baseURL string, extra ...string) result {
	t.Helper()
	dir := t.TempDir()
	jsonFile, junitFile, htmlFile := reportFiles(dir)
	args := append([]string{"--json-report", jsonFile, "--junit", junitFile, "--html-report", htmlFile}, extra...)
	code, out, elapsed := runConform(t, dir, baseURL, args...)
	r := result{exitCode: code, output: out, elapsed: elapsed}
	readReports(t, dir, &r)
	return r
}

// readReports reads the reports of a run from dir into r.
func readReports(t *testing.T, dir string, r *result) {
	t.Helper()
	jsonFile, junitFile, htmlFile := reportFiles(dir)
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatalf("read the JSON report (exit %d): %v\n%s", r.exitCode, err, tail(r.output))
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil || len(reports) != 1 {
		t.Fatalf("the JSON report is not one Ginkgo report (%v)", err)
	}
	r.report, r.json = reports[0], data
	if r.junit, err = os.ReadFile(junitFile); err != nil {
		t.Fatalf("read the JUnit report: %v", err)
	}
	if r.html, err = os.ReadFile(htmlFile); err != nil {
		t.Fatalf("read the HTML report: %v", err)
	}
}

// conformRaw runs "harness conform" in a subprocess against baseURL
// without reports and returns its exit code and output.
func conformRaw(t *testing.T, baseURL string, extra ...string) (int, string) {
	t.Helper()
	code, out, _ := runConform(t, t.TempDir(), baseURL, extra...)
	return code, out
}

// runConform runs "harness conform --base-url baseURL args..." in dir,
// within runTimeout, at most parallelRuns at once.
func runConform(t *testing.T, dir, baseURL string, args ...string) (int, string, time.Duration) {
	t.Helper()
	bin, err := harnessBin()
	if err != nil {
		t.Fatal(err)
	}
	limiter <- struct{}{}
	defer func() { <-limiter }()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"conform", "--base-url", baseURL}, args...)...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("harness conform did not finish within %s\n%s", runTimeout, tail(string(out)))
	case errors.As(err, &exitErr):
		return exitErr.ExitCode(), string(out), elapsed
	case err != nil:
		t.Fatalf("run harness conform: %v", err)
	}
	return 0, string(out), elapsed
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func tail(s string) string {
	const n = 4000
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestCleanMockPasses runs the full suite against the default mock: every
// rule passes, none is skipped, within the time budget. It does not run in
// parallel: the budget is the suite's time alone, and the package's other
// tests (parallel) start after it.
func TestCleanMockPasses(t *testing.T) {
	srv := server(t, defect{})
	// The mock does not grow: the growth rules wait --growth-wait, then
	// skip.
	r := conform(t, srv.URL, "--growth-wait", "100ms")
	t.Logf("the full suite against the default mock took %s (%d rules)", r.elapsed.Round(time.Millisecond), len(r.specs()))
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0", r.exitCode)
	}
	for _, s := range r.failed() {
		t.Errorf("rule failed against the clean mock: %s\n%s", fullText(s), s.Failure.Message)
	}
	grown := 0
	for _, s := range r.specs() {
		growth := slices.Contains(s.Labels(), "growth")
		switch {
		case growth && s.State == types.SpecStateSkipped:
			grown++
		case growth:
			t.Errorf("growth rule %s: %s, want skipped against a mock that does not grow", fullText(s), s.State)
		case s.State == types.SpecStateSkipped:
			t.Errorf("rule skipped against the default mock (its data should show every rule): %s: %s", fullText(s), s.Failure.Message)
		}
	}
	if grown != 7 {
		t.Errorf("%d growth rules skipped, want 7", grown)
	}
	for _, want := range []string{"Model: queries per listing: games ", "Seed: 1 (repeat"} {
		if !strings.Contains(r.output, want) {
			t.Errorf("the summary does not say %q", want)
		}
	}
	for _, s := range r.specs() {
		if s.State != types.SpecStatePassed {
			continue
		}
		if n, ok := casesJudged(s); !ok || n == 0 {
			t.Errorf("rule %s passed having judged %d cases (report entry found: %v): a rule never passes with nothing to check", fullText(s), n, ok)
		}
	}
	if r.elapsed > cleanBudget {
		t.Errorf("the suite took %s against the default mock, over the %s budget", r.elapsed, cleanBudget)
	}
	checkJUnit(t, r)
	for _, want := range []string{"PASSED", "GAMES-PAG-001", "TX-FLT-014", "DEPLOY-LIM-001", "Model coverage", "GAMES-MOD-003"} {
		if !strings.Contains(string(r.html), want) {
			t.Errorf("the HTML report of the clean run does not show %q", want)
		}
	}
}

// TestGrowingMockPasses runs the suite against a mock that gains rows at the
// newest end while the suite runs (after each listing's first walk), as a
// live network does: no rule may mistake the new rows for a defect.
func TestGrowingMockPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Parallel()
	r := conform(t, growingServer(t, 25).URL, "--growth-wait", "100ms")
	if r.exitCode != 0 {
		t.Errorf("exit code %d, want 0", r.exitCode)
	}
	for _, s := range r.failed() {
		t.Errorf("rule failed against a mock that gains rows: %s\n%s", fullText(s), s.Failure.Message)
	}
}

// casesJudged reads how many cases a rule judged from its "outcome"
// report entry.
func casesJudged(s types.SpecReport) (int, bool) {
	for _, e := range s.ReportEntries {
		if e.Name != "outcome" {
			continue
		}
		var o struct {
			Cases int `json:"cases"`
		}
		if err := json.Unmarshal([]byte(e.Value.AsJSON), &o); err != nil {
			return 0, false
		}
		return o.Cases, true
	}
	return 0, false
}

// checkJUnit checks that the JUnit report is XML with one test case per
// rule, each named once.
func checkJUnit(t *testing.T, r result) {
	t.Helper()
	var suites struct {
		Suites []struct {
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(r.junit, &suites); err != nil {
		t.Fatalf("the JUnit report is not XML: %v", err)
	}
	rules := suiteRules(t)
	var names []string
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			names = append(names, c.Name)
		}
	}
	if len(names) != len(rules) {
		t.Errorf("the JUnit report has %d test cases, want one per rule (%d)", len(names), len(rules))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("two JUnit test cases are named %q", n)
		}
		seen[n] = true
	}
}

// TestDefectsAreCaught runs the suite against each defective server: the
// run fails, and among the failed rules is the one the defect breaks.
func TestDefectsAreCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the defect runs take a while")
	}
	t.Parallel()
	for _, d := range defects() {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			srv := server(t, d)
			// The defect's own listing is enough to catch it, and a fifth of
			// the work of a full run.
			r := d.run(t, srv.URL)
			failed := r.failed()
			var names []string
			var caught *types.SpecReport
			for i, s := range failed {
				names = append(names, fullText(s))
				labels := s.Labels()
				if caught == nil && slices.Contains(labels, d.rule) && slices.Contains(labels, d.listing) && slices.Contains(labels, d.area) {
					caught = &failed[i]
				}
			}
			t.Logf("%s: %d of %d rules failed in %s:\n  %s", d.name, len(failed), len(r.specs()), r.elapsed.Round(time.Millisecond), strings.Join(names, "\n  "))
			if caught != nil && d.area == "model" {
				checkModelEntry(t, *caught)
				checkRepeated(t, d, *caught)
			}
			if caught != nil && slices.ContainsFunc(buildDefects(), func(b defect) bool { return b.name == d.name }) {
				checkObservedBlame(t, d, srv.URL, *caught)
			}
			if slices.ContainsFunc(coverDefects(), func(c defect) bool { return c.name == d.name }) {
				checkBlame(t, server(t, defect{}).URL, srv.URL, r)
			}
			if caught != nil {
				t.Logf("the failure of %q reads:\n%s", fullText(*caught), clip(caught.Failure.Message, 2500))
				// The report line names the rule and, for a MUST rule, the
				// spec text it rests on.
				head, _, _ := strings.Cut(caught.Failure.Message, "\n")
				if !strings.HasPrefix(head, d.rule+" (MUST, spec §") && head != d.rule+" (SHOULD: our reading, docs/behaviour.md)" {
					t.Errorf("the failure of %s begins %q, not with its ID, level and citation", d.rule, head)
				}
			}
			if r.exitCode != 1 {
				t.Errorf("exit code %d, want 1 (rules failed)", r.exitCode)
			}
			if ran := r.ran(); d.listing != "deployment" && !d.judgesTraffic && !d.judgesRun && (len(ran) != 1 || !slices.Contains(ran[0].Labels(), d.rule)) {
				t.Errorf("the run selected by %q ran %d rules, want %s alone", d.scope(), len(ran), d.rule)
			}
			if caught == nil {
				t.Errorf("rule %s (labelled %s and %s) did not fail (%s)\n%s", d.rule, d.listing, d.area, d.what, tail(r.output))
			}
		})
	}
}

// checkModelEntry checks the JSON report's entry of a failed model rule: the
// listing's coverage, and each failure with its query, curl line and what
// differed; a shrunk query is never longer than the one it came from.
func checkModelEntry(t *testing.T, s types.SpecReport) {
	t.Helper()
	for _, e := range s.ReportEntries {
		if e.Name != "model" {
			continue
		}
		var r report.ModelReport
		if err := json.Unmarshal([]byte(e.Value.AsJSON), &r); err != nil {
			t.Fatalf("the model entry is not a ModelReport: %v", err)
		}
		if r.Error != "" {
			return // the model could not be built: the failure says why
		}
		if r.Queries == 0 || r.Seed == 0 || len(r.Params) == 0 || r.Pairs == 0 || len(r.Failures) == 0 {
			t.Errorf("the model entry lacks coverage or failures: %+v", r)
		}
		for _, f := range r.Failures {
			if f.Query == "" || !strings.HasPrefix(f.Curl, "curl ") || f.Detail == "" || f.Rule == "" {
				t.Errorf("an incomplete failure: %+v", f)
			}
			if f.Shrunk != "" && f.Shrunk != "no parameters" && len(strings.Fields(f.Shrunk)) > len(strings.Fields(f.Query)) {
				t.Errorf("shrunk %q is longer than %q", f.Shrunk, f.Query)
			}
		}
		return
	}
	t.Errorf("the failed model rule %s has no model entry in the JSON report", fullText(s))
}

// TestDefectsCoverEveryListingAndArea keeps the defect set honest.
func TestDefectsCoverEveryListingAndArea(t *testing.T) {
	ds := defects()
	rules := suiteRules(t)
	ids := map[string]bool{}
	for _, r := range rules {
		ids[r.ID] = true
	}
	if len(ds) < 15 {
		t.Errorf("%d defects, want at least 15", len(ds))
	}
	if n := len(modelDefects()); n < 15 {
		t.Errorf("%d defects for the model rules, want at least 15", n)
	}
	listings, areas, names := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range ds {
		if names[d.name] {
			t.Errorf("two defects are named %s", d.name)
		}
		names[d.name] = true
		listings[d.listing], areas[d.area] = true, true
		if d.rule == "" || d.what == "" || (d.wrap == nil && d.config == nil && d.start == nil) {
			t.Errorf("defect %s is incomplete", d.name)
		}
		if !ids[d.rule] {
			t.Errorf("defect %s names %q, which is not the ID of a rule of the suite", d.name, d.rule)
		}
	}
	for _, l := range rule.Listings {
		if !listings[l] {
			t.Errorf("no defect for listing %s", l)
		}
	}
	for _, a := range rule.Areas {
		if a == "growth" {
			continue // a growth defect needs a growing chain: TestGrowthRuleCatchesOffsetCursors
		}
		if !areas[a] {
			t.Errorf("no defect for area %s", a)
		}
	}
}

// defectTable is the page of the docs whose table lists every defect (it
// moved there from the project README, whose front page links to it).
const defectTable = "docs/conformance-selftest.md"

// TestREADMEListsEveryDefect checks the defect table of the docs
// (defectTable).
func TestREADMEListsEveryDefect(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(defectTable)))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defects() {
		if !strings.Contains(string(data), "`"+d.name+"`") {
			t.Errorf("%s does not list defect %s", defectTable, d.name)
		}
		if !strings.Contains(string(data), "`"+d.name+"` | "+d.listing+" / "+d.area+" |") || !strings.Contains(string(data), d.rule) {
			t.Errorf("%s's row of defect %s does not give its listing / area (%s / %s) and its rule %s", defectTable, d.name, d.listing, d.area, d.rule)
		}
	}
}
