package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// benchCase is one request target measured.
type benchCase struct {
	name   string
	target string  // path and query
	want   float64 // the least mock/bare rate the mock should reach
}

// cases are the targets make bench-wire measures, with the issue's
// targets: the mock at 0.90 of the bare rate for the small pages of
// parameters and snapshots, 0.85 for the others.
var cases = []benchCase{
	{"parameters", "/api/v2/network/parameters?pagination.first=100", 0.90},
	{"snapshots", "/api/v2/snapshots?pagination.first=100", 0.90},
	{"transactions", "/transactions?first=50", 0.85},
	{"transactions-cmdtypes", "/transactions?first=50&cmdTypes=Batch+Proposal", 0.85},
	{"games", "/api/v2/games?pagination.first=100", 0.85},
}

// bench measures the mock against the bare handler with a load tool.
type bench struct {
	tool            loadTool
	rounds          int
	duration        time.Duration // of each round, for each server
	latencyDuration time.Duration // of the one-connection runs
	warmDuration    time.Duration // of the untimed run before the rounds
	conns           int
	out             io.Writer
	machine         func() string // the machine line: cores, load, Go, time
	// mockCPU and bareCPU return the CPU time each server's process has
	// used so far (false: unknown), so that each run's CPU time per answer
	// is known: a figure a loaded machine disturbs less than the rates.
	mockCPU, bareCPU func() (time.Duration, bool)
	counted          int64 // answers the tool counted from the mock, in every run
	runs             int   // runs against the mock
}

// caseResult is what bench measured of one case.
type caseResult struct {
	c                 benchCase
	size              int
	mock, bare        []result // a round each
	mockLat, bareLat  result   // at one connection
	machine           string   // after the rounds
	ratio, least, top float64  // mock/bare over all rounds, and the least and highest of a round
}

// measure runs the rounds of c against the mock and the bare handler, a
// round of one then of the other, then each at one connection, and prints
// each round's rates and ratio with the load, and the whole case's.
func (b *bench) measure(ctx context.Context, c benchCase, size int, mockURL, bareURL string) (caseResult, error) {
	res := caseResult{c: c, size: size}
	fmt.Fprintf(b.out, "\n%s: GET %s (%s bytes)\n", c.name, c.target, thousands(float64(size)))
	mock := func(conns int, d time.Duration) (result, error) {
		r, err := b.timed(ctx, b.mockCPU, mockURL+c.target, conns, d)
		b.counted += r.requests
		b.runs++
		if err == nil && r.failed > 0 {
			err = fmt.Errorf("%s: the mock answered %d requests of %s with an error or not at all", c.name, r.failed, c.target)
		}
		return r, err
	}
	bare := func(conns int, d time.Duration) (result, error) {
		r, err := b.timed(ctx, b.bareCPU, bareURL+c.target, conns, d)
		if err == nil && r.failed > 0 {
			err = fmt.Errorf("%s: the bare handler answered %d requests of %s with an error or not at all", c.name, r.failed, c.target)
		}
		return r, err
	}
	// Untimed: the connections, the caches and the heaps of both warm up.
	if _, err := mock(b.conns, b.warmDuration); err != nil {
		return res, err
	}
	if _, err := bare(b.conns, b.warmDuration); err != nil {
		return res, err
	}
	for i := range b.rounds {
		m, err := mock(b.conns, b.duration)
		if err != nil {
			return res, err
		}
		br, err := bare(b.conns, b.duration)
		if err != nil {
			return res, err
		}
		res.mock, res.bare = append(res.mock, m), append(res.bare, br)
		fmt.Fprintf(b.out, "  round %d: mock %s req/s, bare %s req/s: %.3f%s (%s)\n",
			i+1, thousands(m.rate), thousands(br.rate), safeRatio(m.rate, br.rate), cpuNote(m, br), b.machine())
	}
	var err error
	if res.mockLat, err = mock(1, b.latencyDuration); err != nil {
		return res, err
	}
	if res.bareLat, err = bare(1, b.latencyDuration); err != nil {
		return res, err
	}
	res.ratio, res.least, res.top = ratios(res.mock, res.bare)
	res.machine = b.machine()
	fmt.Fprintf(b.out, "  %s\n", res.machine)
	fmt.Fprintf(b.out, "  mock/bare %.2f (rounds %.3f to %.3f; target %.2f: %s)\n", res.ratio, res.least, res.top, c.want, verdict(res.ratio, c.want))
	fmt.Fprintf(b.out, "  one connection: mock p50 %v p99 %v, bare p50 %v p99 %v\n",
		short(res.mockLat.p50), short(res.mockLat.p99), short(res.bareLat.p50), short(res.bareLat.p99))
	return res, nil
}

// timed runs the load tool against url, and measures the CPU time the
// server's process used meanwhile with cpu.
func (b *bench) timed(ctx context.Context, cpu func() (time.Duration, bool), url string, conns int, d time.Duration) (result, error) {
	before, ok := cpu()
	r, err := b.tool.measure(ctx, url, conns, d)
	if after, ok2 := cpu(); ok && ok2 && r.requests > 0 {
		r.cpu = (after - before) / time.Duration(r.requests)
	}
	return r, err
}

// cpuNote says the CPU time per answer of each server, when known.
func cpuNote(mock, bare result) string {
	if mock.cpu == 0 || bare.cpu == 0 {
		return ""
	}
	return fmt.Sprintf("; CPU per answer mock %v, bare %v", short(mock.cpu), short(bare.cpu))
}

// ratios returns the mock's rate over the bare handler's over all rounds
// (the rounds are of equal length, so the mean rates), and the least and
// highest ratio of one round.
func ratios(mock, bare []result) (all, least, top float64) {
	var m, b float64
	for i := range mock {
		m += mock[i].rate
		b += bare[i].rate
		r := safeRatio(mock[i].rate, bare[i].rate)
		if i == 0 {
			least, top = r, r
		}
		least, top = min(least, r), max(top, r)
	}
	return safeRatio(m, b), least, top
}

// safeRatio returns a/b, 0 when b is 0.
func safeRatio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// verdict says whether ratio meets want.
func verdict(ratio, want float64) string {
	if ratio >= want {
		return "met"
	}
	return "NOT met"
}

// summary prints the table of the cases measured: the ratio over all
// rounds, the mean rates and CPU times per answer, and the latencies at
// one connection.
func summary(out io.Writer, results []caseResult) {
	fmt.Fprintf(out, "\n%-22s %9s %6s %11s %11s %17s %17s %17s\n",
		"case", "mock/bare", "target", "mock req/s", "bare req/s", "CPU mock / bare", "p50 mock / bare", "p99 mock / bare")
	for _, r := range results {
		fmt.Fprintf(out, "%-22s %9.2f %6.2f %11s %11s %17s %17s %17s\n", r.c.name, r.ratio, r.c.want,
			thousands(meanRate(r.mock)), thousands(meanRate(r.bare)),
			cpuText(meanCPU(r.mock))+" / "+cpuText(meanCPU(r.bare)),
			short(r.mockLat.p50)+" / "+short(r.bareLat.p50), short(r.mockLat.p99)+" / "+short(r.bareLat.p99))
	}
}

// cpuText writes a CPU time per answer, "?" when unknown.
func cpuText(d time.Duration) string {
	if d == 0 {
		return "?"
	}
	return short(d)
}

// meanRate returns the mean rate of rounds.
func meanRate(rounds []result) float64 {
	var sum float64
	for _, r := range rounds {
		sum += r.rate
	}
	return safeRatio(sum, float64(len(rounds)))
}

// meanCPU returns the mean CPU time per answer of rounds, 0 when unknown.
func meanCPU(rounds []result) time.Duration {
	var sum time.Duration
	for _, r := range rounds {
		if r.cpu == 0 {
			return 0
		}
		sum += r.cpu
	}
	if len(rounds) == 0 {
		return 0
	}
	return sum / time.Duration(len(rounds))
}

// checkLog compares the request log's lines with the answers the tool
// counted from the mock: every counted answer has its line, and at most
// the requests in flight when a run ended (conns a run) have a line the
// tool did not count.
func checkLog(lines, counted int64, runs, conns int) error {
	if lines < counted {
		return fmt.Errorf("the request log holds %d lines for %d answers counted: %d lost", lines, counted, counted-lines)
	}
	if extra, bound := lines-counted, int64(runs*conns); extra > bound {
		return fmt.Errorf("the request log holds %d lines for %d answers counted: %d more than the %d requests that can have been in flight", lines, counted, extra, bound)
	}
	return nil
}

// countLogLines counts the request lines of a log of harness serve, in
// its text or JSON format.
func countLogLines(data []byte) int64 {
	var n int64
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.Contains(line, " msg=request ") || strings.Contains(line, `"msg":"request"`) {
			n++
		}
	}
	return n
}

// machine returns the machine line of the Makefile's MACHINE: the cores,
// the load over 1, 5 and 15 minutes, the Go version and the time.
func machine() string {
	loadavg, _ := os.ReadFile("/proc/loadavg")
	return machineLine(runtime.NumCPU(), string(loadavg), runtime.Version(), time.Now())
}

// machineLine is the machine line of a machine of cores whose
// /proc/loadavg reads loadavg ("" where there is none).
func machineLine(cores int, loadavg, goVersion string, now time.Time) string {
	load := "unknown"
	if f := strings.Fields(loadavg); len(f) >= 3 {
		load = strings.Join(f[:3], " ")
	}
	return fmt.Sprintf("machine: %d cores, load %s, %s, %s", cores, load, goVersion, now.UTC().Format("2006-01-02T15:04Z"))
}

// thousands writes v rounded, with commas between thousands.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// short writes a latency to three significant digits or so.
func short(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
