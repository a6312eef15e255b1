package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// runHarness runs the harness in-process with stdin as its standard input
// and returns its exit code and output.
func runHarness(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut}
	code = run(context.Background(), e, args)
	return code, out.String(), errOut.String()
}

// runCmd runs the harness in-process with an empty standard input.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runHarness(t, "", args...)
}

// wantUsageError runs the harness with args and checks that it exits with
// the usage code and that standard error says want. It returns standard
// output and standard error for further checks.
func wantUsageError(t *testing.T, args []string, want string) (stdout, stderr string) {
	t.Helper()
	code, out, errOut := runCmd(t, args...)
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr %q does not say %q", errOut, want)
	}
	return out, errOut
}

// startListener runs a long-lived subcommand (serve, proxy) in-process with
// addrFlag set to a free port of 127.0.0.1 and logging off. It returns the
// URL the command prints on its first line and a function that stops the
// command and returns its exit code and the rest of its standard output.
func startListener(t *testing.T, command, addrFlag string, args ...string) (string, func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(ctx, &env{stdin: strings.NewReader(""), stdout: pw, stderr: io.Discard},
			append([]string{command, addrFlag, "127.0.0.1:0", "--log-format", "none"}, args...))
		pw.Close()
		done <- code
	}()
	r := bufio.NewReader(pr)
	line, err := r.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("%s printed no URL: %v (exit %d)", command, err, <-done)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		rest <- string(b)
	}()
	i := strings.Index(line, "http://")
	if i < 0 {
		cancel()
		t.Fatalf("%s printed %q, want a URL", command, line)
	}
	url := strings.Fields(line[i:])[0]
	return url, func() (int, string) {
		cancel()
		select {
		case code := <-done:
			return code, <-rest
		case <-time.After(15 * time.Second):
			t.Fatalf("%s did not stop within 15 s of its context ending", command)
			return -1, ""
		}
	}
}

// startServe runs harness serve on a free port and returns its base URL and
// a function that stops it and returns its exit code.
func startServe(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	base, stop := startListener(t, "serve", "--addr", args...)
	return base, func() int {
		code, _ := stop()
		return code
	}
}

// startProxyCmd runs harness proxy on a free port and returns its URL and a
// function that stops it and returns its exit code and output.
func startProxyCmd(t *testing.T, args ...string) (string, func() (int, string)) {
	t.Helper()
	return startListener(t, "proxy", "--listen", args...)
}
