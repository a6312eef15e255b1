package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// result is what one run of a load tool measured.
type result struct {
	requests int64         // answers the tool counted
	rate     float64       // answers a second
	p50, p99 time.Duration // latency percentiles
	failed   int64         // answers other than 2xx and 3xx, and socket errors
	cpu      time.Duration // the server's CPU time per answer (0: unknown)
}

// loadTool drives a server with a load tool.
type loadTool interface {
	// name says which tool, for the report.
	name() string
	// measure drives url with conns connections for d.
	measure(ctx context.Context, url string, conns int, d time.Duration) (result, error)
}

// wrk is the wrk load tool (Debian package wrk): one thread, every
// connection kept alive.
type wrk struct{ path string }

func (w wrk) name() string { return "wrk" }

func (w wrk) measure(ctx context.Context, url string, conns int, d time.Duration) (result, error) {
	argv := w.args(url, conns, d)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	r, err := w.parse(out)
	if err != nil {
		return result{}, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return r, nil
}

// args is the command line of a run.
func (w wrk) args(url string, conns int, d time.Duration) []string {
	return []string{w.path, "-t1", "-c" + strconv.Itoa(conns), "-d" + wholeSeconds(d), "--latency", url}
}

// wholeSeconds writes d as wrk reads a duration: whole seconds, at least 1.
func wholeSeconds(d time.Duration) string {
	return strconv.FormatInt(max(1, int64((d+time.Second/2)/time.Second)), 10) + "s"
}

// parse reads wrk's report: the requests it counted, their rate, the
// latency distribution of --latency, and the errors.
func (w wrk) parse(out []byte) (result, error) {
	var r result
	var haveRate, haveCount, have50, have99 bool
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return r, fmt.Errorf("wrk's rate %q: %w", f[1], err)
			}
			r.rate, haveRate = v, true
		case len(f) >= 3 && f[1] == "requests" && f[2] == "in":
			v, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return r, fmt.Errorf("wrk's count %q: %w", f[0], err)
			}
			r.requests, haveCount = v, true
		case len(f) == 2 && (f[0] == "50%" || f[0] == "99%"):
			v, err := wrkDuration(f[1])
			if err != nil {
				return r, err
			}
			if f[0] == "50%" {
				r.p50, have50 = v, true
			} else {
				r.p99, have99 = v, true
			}
		case len(f) == 5 && f[0] == "Non-2xx":
			v, err := strconv.ParseInt(f[4], 10, 64)
			if err != nil {
				return r, fmt.Errorf("wrk's non-2xx count %q: %w", f[4], err)
			}
			r.failed += v
		case len(f) >= 2 && f[0] == "Socket" && f[1] == "errors:":
			// Socket errors: connect 0, read 0, write 0, timeout 0
			for i := 3; i < len(f); i += 2 {
				v, err := strconv.ParseInt(strings.TrimSuffix(f[i], ","), 10, 64)
				if err != nil {
					return r, fmt.Errorf("wrk's socket errors %q: %w", sc.Text(), err)
				}
				r.failed += v
			}
		}
	}
	if !haveRate || !haveCount || !have50 || !have99 {
		return r, fmt.Errorf("wrk's report lacks its rate, count or latency distribution:\n%s", out)
	}
	return r, nil
}

// wrkDuration reads a latency as wrk prints it: 705.24us, 1.20ms, 2.00s,
// 1.00m.
func wrkDuration(s string) (time.Duration, error) {
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("wrk's latency %q: not a duration", s)
			}
			return time.Duration(v * float64(u.unit)), nil
		}
	}
	return 0, fmt.Errorf("wrk's latency %q: no unit", s)
}

// vegeta is the vegeta load tool, run through its command (such as go run
// github.com/tsenart/vegeta/v12@v12.13.0): as fast as it can, with as many
// workers as connections.
type vegeta struct{ command []string }

func (v vegeta) name() string { return "vegeta" }

// args is the command line of the attack.
func (v vegeta) args(conns int, d time.Duration) []string {
	n := strconv.Itoa(conns)
	return append(append([]string{}, v.command...), "attack", "-rate=0", "-workers="+n, "-max-workers="+n, "-duration="+d.String())
}

// measure pipes vegeta attack, its target on its input, into vegeta report.
func (v vegeta) measure(ctx context.Context, url string, conns int, d time.Duration) (result, error) {
	attackArgs := v.args(conns, d)
	attack := exec.CommandContext(ctx, attackArgs[0], attackArgs[1:]...)
	attack.Stdin = strings.NewReader("GET " + url + "\n")
	report := exec.CommandContext(ctx, v.command[0], append(append([]string{}, v.command[1:]...), "report", "-type=json")...)
	pipe, err := attack.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	report.Stdin = pipe
	var attackErr, reportErr bytes.Buffer // each written by a goroutine of its command
	attack.Stderr, report.Stderr = &attackErr, &reportErr
	if err := attack.Start(); err != nil {
		return result{}, fmt.Errorf("vegeta attack: %w", err)
	}
	out, rerr := report.Output()
	aerr := attack.Wait()
	if err := errors.Join(aerr, rerr); err != nil {
		return result{}, fmt.Errorf("vegeta: %w: %s %s", err, strings.TrimSpace(attackErr.String()), strings.TrimSpace(reportErr.String()))
	}
	return v.parse(out)
}

// parse reads vegeta report -type=json.
func (v vegeta) parse(out []byte) (result, error) {
	var rep struct {
		Latencies struct {
			P50 int64 `json:"50th"`
			P99 int64 `json:"99th"`
		} `json:"latencies"`
		Requests    *int64           `json:"requests"`
		Throughput  float64          `json:"throughput"`
		StatusCodes map[string]int64 `json:"status_codes"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		return result{}, fmt.Errorf("vegeta's report: %w", err)
	}
	if rep.Requests == nil {
		return result{}, fmt.Errorf("vegeta's report lacks its count of requests: %s", out)
	}
	r := result{requests: *rep.Requests, rate: rep.Throughput, p50: time.Duration(rep.Latencies.P50), p99: time.Duration(rep.Latencies.P99)}
	for code, n := range rep.StatusCodes {
		if len(code) != 3 || (code[0] != '2' && code[0] != '3') {
			r.failed += n
		}
	}
	return r, nil
}
