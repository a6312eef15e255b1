package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
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
