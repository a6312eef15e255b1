package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/chaindata/harness/mockserver/proxy"
	"github.com/chaindata/harness/schemas"
)

// runProxy forwards requests to a deployment and validates its responses
// until interrupted: exit 0 after a clean shutdown, 1 when it cannot listen,
// 2 on a usage error. Violations are logged and counted, never fatal.
func runProxy(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "proxy", "--upstream URL [--listen ADDR] [flags]")
	upstream := fs.String("upstream", "", "base URL of the deployment to forward to, e.g. http://127.0.0.1:8080 (required)")
	listen := fs.String("listen", "127.0.0.1:8090", "address to listen on (port 0 picks a free port)")
	maxBody := fs.Int64("max-body-bytes", proxy.DefaultMaxBodyBytes, "largest body buffered for validation; larger ones pass through unchecked and are counted")
	logFormat := fs.String("log-format", "text", "log of violations on standard error: text, json or none")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	}
	if *upstream == "" {
		return usageError(e.stderr, fs, "--upstream is required")
	}
	u, err := url.Parse(*upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return usageError(e.stderr, fs, "--upstream: want an absolute http or https URL without query, got %q", *upstream)
	}
	if *maxBody <= 0 {
		return usageError(e.stderr, fs, "--max-body-bytes must be positive")
	}
	log, err := newLogger(e, *logFormat)
	if err != nil {
		return usageError(e.stderr, fs, "%v", err)
	}

	p := proxy.New(proxy.Config{Upstream: u, Logger: log, MaxBodyBytes: *maxBody})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(e.stderr, "harness proxy: %v\n", err)
		return exitFailure
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
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
	p.Wait(10 * time.Second)
	m := p.Metrics()
	unchecked := int64(0)
	for _, n := range m.Unchecked {
		unchecked += n
	}
	fmt.Fprintf(e.stdout, "stopped: %d requests, %d responses checked, %d unchecked, %d violations (%d breaking the spec), %d upstream errors\n",
		m.Requests, m.Checked, unchecked, m.Violations, m.Profiles[string(schemas.Spec)], m.UpstreamErrors)
	return exitOK
}
