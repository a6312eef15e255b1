package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startServeProcess runs harness serve as a separate process on a free port
// of 127.0.0.1 and returns its base URL; the process is interrupted (and
// must stop) when the test ends.
func startServeProcess(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "none"}, args...)...)
	cmd.Env = append(os.Environ(), "HARNESS_TEST_MAIN=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Error("harness serve did not stop within 15 s of SIGINT")
		}
	})
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("harness serve printed nothing: %v", lines.Err())
	}
	first := lines.Text()
	go func() {
		for lines.Scan() {
		}
		done <- cmd.Wait()
	}()
	i := strings.Index(first, "http://")
	if i < 0 {
		t.Fatalf("harness serve printed %q, want its URL", first)
	}
	return strings.Fields(first[i:])[0]
}

// TestServeLogWrittenOutAtShutdown sends a burst of requests to harness
// serve with each log format, then stops it with SIGINT or SIGTERM at once,
// before the log's tick: once it has exited (0), its standard error holds
// exactly one request line per request, none lost in the log's buffer.
func TestServeLogWrittenOutAtShutdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		sig    syscall.Signal
		format string
		line   string // what only a request's line holds, %d its count
	}{
		{"SIGINT, text", syscall.SIGINT, "text", `msg=request method=GET path=/api/v2/network/parameters query="pagination.first=%d" status=200 `},
		{"SIGTERM, json", syscall.SIGTERM, "json", `"msg":"request","method":"GET","path":"/api/v2/network/parameters","query":"pagination.first=%d","status":200,`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--scale", "0.01", "--log-format", tc.format)
			cmd.Env = append(os.Environ(), "HARNESS_TEST_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			lines := bufio.NewScanner(out)
			if !lines.Scan() {
				cmd.Process.Kill()
				t.Fatalf("harness serve printed nothing: %v", lines.Err())
			}
			first := lines.Text()
			go func() {
				for lines.Scan() {
				}
				done <- cmd.Wait()
			}()
			i := strings.Index(first, "http://")
			if i < 0 {
				cmd.Process.Kill()
				t.Fatalf("harness serve printed %q, want its URL", first)
			}
			base := strings.Fields(first[i:])[0]

			const clients, each = 8, 25
			client := &http.Client{Timeout: 30 * time.Second}
			var wg sync.WaitGroup
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range each {
						resp, err := client.Get(fmt.Sprintf("%s/api/v2/network/parameters?pagination.first=%d", base, c*each+i+1))
						if err != nil {
							t.Error(err)
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}()
			}
			wg.Wait()
			cmd.Process.Signal(tc.sig)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("harness serve after %v: %v; stderr:\n%s", tc.sig, err, stderr.String())
				}
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("harness serve did not stop within 15 s of %v", tc.sig)
			}
			log := stderr.String()
			for n := 1; n <= clients*each; n++ {
				if got := strings.Count(log, fmt.Sprintf(tc.line, n)); got != 1 {
					t.Errorf("request %d has %d lines in the log, want 1", n, got)
				}
			}
		})
	}
}
