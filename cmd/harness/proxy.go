package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/chaindata/harness/conformance/config"
	"github.com/chaindata/harness/deployment/proxy"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/schemas"
)

// proxyArgs is what the command line and the environment ask of harness
// proxy.
type proxyArgs struct {
	cfg    proxy.Config
	listen string
}

// parseProxy reads harness proxy's flags and HARNESS_HEADERS (any --header
// replaces the variable's headers). A code of -1 means go on; any other is
// the exit code.
func parseProxy(e *env, args []string) (proxyArgs, int) {
	fs := newFlagSet(e, "proxy", "--upstream URL [--listen ADDR] [flags]")
	var a proxyArgs
	upstream := fs.String("upstream", "", "base URL of the deployment to forward to, e.g. http://127.0.0.1:8080 (required)")
	fs.StringVar(&a.listen, "listen", "127.0.0.1:8090", "address to listen on (port 0 picks a free port)")
	fs.Int64Var(&a.cfg.MaxBodyBytes, "max-body-bytes", proxy.DefaultMaxBodyBytes, "largest body buffered for validation; larger ones pass through unchecked and are counted")
	logFormat := fs.String("log-format", "text", "log of violations on standard error: text, json or none")
	fs.IntVar(&a.cfg.Checkers, "checkers", runtime.GOMAXPROCS(0), "checks that run at once, beside the forwarding: by default one per CPU the Go runtime uses (GOMAXPROCS)")
	fs.IntVar(&a.cfg.CheckQueue, "check-queue", proxy.DefaultCheckQueue, "responses that may wait for a checker; when every checker is busy and the queue is full, a response passes unchecked (counted as busy)")
	fs.Int64Var(&a.cfg.CheckQueueBytes, "check-queue-bytes", proxy.DefaultCheckQueueBytes, "bytes of bodies that may wait for a checker (a second bound on the queue)")
	fs.Float64Var(&a.cfg.CheckCPU, "check-cpu", proxy.DefaultCheckCPU, "share of the CPUs the checks may use while requests are in flight and goroutines wait for a CPU, above 0 and at most 1; without that contention they run flat out")
	fs.Float64Var(&a.cfg.CheckSample, "check-sample", 1, "fraction of listing responses checked, above 0 and at most 1; the others pass unchecked (counted as sampled-out); a counter chooses them: of the first N listing requests ceil(N*F) are checked, the first among them")
	var headers []string
	fs.Var(config.HeaderFlag(&headers), "header", "`Name: value` header set on every upstream request (replacing the client's), e.g. an API key; repeatable; values are never printed (env "+config.EnvHeaders+", one a line; any --header replaces them)")
	if v := e.lookupEnv(config.EnvHeaders); v != "" {
		var err error
		if headers, err = config.HeadersFromEnv(v); err != nil {
			return a, usageError(e.stderr, fs, "%v", err)
		}
	}
	if code := parseFlags(fs, args); code >= 0 {
		return a, code
	}
	if fs.NArg() > 0 {
		return a, usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	}
	if *upstream == "" {
		return a, usageError(e.stderr, fs, "--upstream is required")
	}
	if err := checkAddr("--listen", a.listen); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if err := checkSchemes("--upstream", *upstream); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	u, err := url.Parse(*upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return a, usageError(e.stderr, fs, "--upstream: want an absolute http or https URL without query, got %q", *upstream)
	}
	a.cfg.Upstream = u
	if a.cfg.MaxBodyBytes <= 0 {
		return a, usageError(e.stderr, fs, "--max-body-bytes must be positive")
	}
	if a.cfg.Checkers < 1 {
		return a, usageError(e.stderr, fs, "--checkers must be at least 1, got %d", a.cfg.Checkers)
	}
	if a.cfg.CheckQueue < 1 {
		return a, usageError(e.stderr, fs, "--check-queue must be at least 1, got %d", a.cfg.CheckQueue)
	}
	if a.cfg.CheckQueueBytes < 1 {
		return a, usageError(e.stderr, fs, "--check-queue-bytes must be at least 1, got %d", a.cfg.CheckQueueBytes)
	}
	// Written as !(in range) so that NaN fails too.
	if f := a.cfg.CheckSample; !(f > 0 && f <= 1) {
		return a, usageError(e.stderr, fs, "--check-sample must be above 0 and at most 1, got %v", f)
	}
	if f := a.cfg.CheckCPU; !(f > 0 && f <= 1) {
		return a, usageError(e.stderr, fs, "--check-cpu must be above 0 and at most 1, got %v", f)
	}
	if a.cfg.Logger, err = newLogger(e, *logFormat); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	if a.cfg.Header, err = config.ParseHeaders(headers); err != nil {
		return a, usageError(e.stderr, fs, "%v", err)
	}
	return a, -1
}

// runProxy forwards requests to a deployment and validates its responses
// until interrupted: exit 0 after a clean shutdown, 1 when it cannot listen,
// 2 on a usage error. Violations are logged and counted, never fatal.
func runProxy(ctx context.Context, e *env, args []string) int {
	a, code := parseProxy(e, args)
	if code >= 0 {
		return code
	}
	p := proxy.New(a.cfg)
	u := a.cfg.Upstream
	ln, err := listen("--listen", a.listen)
	if err != nil {
		fmt.Fprintf(e.stderr, "harness proxy: %v\n", err)
		return exitFailure
	}
	// The mock's limits for slow and hostile clients: a header block over
	// the limit gets the error body, a client that stops reading is dropped.
	srv := &http.Server{
		Handler: mockserver.WriteDeadlines(mockserver.LimitHeaders(p, mockserver.DefaultMaxHeaderBytes),
			mockserver.DefaultWriteTimeout, mockserver.DefaultMinWriteRate),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: mockserver.DefaultMaxHeaderBytes + mockserver.HeaderSlack,
	}
	fmt.Fprintf(e.stdout, "proxying http://%s to %s; metrics at http://%s%s\n", ln.Addr(), u, ln.Addr(), proxy.MetricsPath)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(e.stderr, "harness proxy: %v\n", err)
		return exitFailure
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(e.stderr, "harness proxy: shutdown: %v\n", err)
		return exitFailure
	}
	if open := p.Wait(10 * time.Second); open > 0 {
		fmt.Fprintf(e.stderr, "harness proxy: %d responses still being checked after 10s; the totals leave them out\n", open)
	}
	fmt.Fprintln(e.stdout, summary(p.Metrics()))
	return exitOK
}

// summary is the line harness proxy prints when it stops: the requests,
// the responses checked and unchecked (by reason), the violations and the
// upstream errors.
func summary(m proxy.Metrics) string {
	unchecked := int64(0)
	reasons := make([]string, 0, len(m.Unchecked))
	for reason, n := range m.Unchecked {
		unchecked += n
		if n > 0 {
			reasons = append(reasons, fmt.Sprintf("%s %d", reason, n))
		}
	}
	sort.Strings(reasons)
	why := ""
	if len(reasons) > 0 {
		why = " (" + strings.Join(reasons, ", ") + ")"
	}
	return fmt.Sprintf("stopped: %d requests, %d responses checked, %d unchecked%s, %d violations (%d breaking the spec), %d upstream errors",
		m.Requests, m.Checked, unchecked, why, m.Violations, m.Profiles[string(schemas.Spec)], m.UpstreamErrors)
}
