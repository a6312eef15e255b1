package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Bounds of the tests that run the built binary.
const (
	// startTimeout bounds how long a server subprocess may take to print
	// its first line (it prints it once it listens).
	startTimeout = 60 * time.Second
	// stopTimeout bounds how long a server subprocess may take to stop
	// after SIGINT.
	stopTimeout = 15 * time.Second
)

// goTool returns the go command the tests build with: the one on the PATH,
// else the one of the toolchain that built the test.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// binaryDirMade and mockStarted say whether harnessBinary and sharedMock
// ran, so that TestMain cleans up after them without starting them.
var binaryDirMade, mockStarted atomic.Bool

// harnessBinary is the harness binary, built once per test binary (without
// the race detector, so that subprocesses run at their real speed) into a
// temporary directory that TestMain removes. It is built with the flags of
// the docs examples' go commands (docBuildFlags): -trimpath keys the build
// cache's entries without the checkout's directory, so that the examples'
// clones reuse these packages (and the next checkout too), and -ldflags=-w
// (no DWARF: nothing here runs a debugger) takes a third off each link.
var harnessBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "harness-bin-")
	if err != nil {
		return "", fmt.Errorf("temp dir for the harness binary: %w", err)
	}
	binaryDirMade.Store(true)
	bin := filepath.Join(dir, "harness")
	cmd := exec.Command(goTool(), append([]string{"build"}, append(docBuildFlags, "-o", bin, ".")...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/harness: %w\n%s", err, out)
	}
	return bin, nil
})

// mustHarnessBinary returns the built binary or fails the test.
func mustHarnessBinary(t *testing.T) string {
	t.Helper()
	bin, err := harnessBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// process is a long-running harness subprocess (serve, proxy) started on a
// free port of 127.0.0.1.
type process struct {
	cmd  *exec.Cmd
	url  string
	done chan error
	// out collects what the process writes after its first line.
	out *strings.Builder
	mu  *sync.Mutex
}

// startProcess runs bin with args and waits until its first line of
// standard output names the URL it serves on.
func startProcess(bin string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("harness %s: %w", strings.Join(args, " "), err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start harness %s: %w", strings.Join(args, " "), err)
	}
	p := &process{cmd: cmd, done: make(chan error, 1), out: &strings.Builder{}, mu: &sync.Mutex{}}
	first := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		first <- line
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				break
			}
		}
		p.done <- cmd.Wait()
	}()
	select {
	case line := <-first:
		i := strings.Index(line, "http://")
		if i < 0 {
			p.stop()
			return nil, fmt.Errorf("harness %s printed %q, want a URL", strings.Join(args, " "), line)
		}
		p.url = strings.TrimSuffix(strings.Fields(line[i:])[0], ";")
		return p, nil
	case <-time.After(startTimeout):
		p.stop()
		return nil, fmt.Errorf("harness %s printed no URL within %v", strings.Join(args, " "), startTimeout)
	}
}

// stop interrupts the process as Ctrl-C would and returns its exit code
// (-1 when it had to be killed).
func (p *process) stop() int {
	p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			return -1
		}
		return 0
	case <-time.After(stopTimeout):
		p.cmd.Process.Kill()
		<-p.done
		return -1
	}
}

// output is what the process wrote after its first line, so far.
func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// sharedMock is harness serve with no flags but a free port: the default
// world the documented examples are written against. TestMain stops it.
var sharedMock = sync.OnceValues(func() (*process, error) {
	bin, err := harnessBinary()
	if err != nil {
		return nil, err
	}
	mockStarted.Store(true)
	return startProcess(bin, "serve", "--addr", "127.0.0.1:0", "--log-format", "none")
})

// mustSharedMock returns the base URL of the shared mock or fails the test.
func mustSharedMock(t *testing.T) string {
	t.Helper()
	p, err := sharedMock()
	if err != nil {
		t.Fatal(err)
	}
	return p.url
}

func TestMain(m *testing.M) {
	// HARNESS_TEST_MAIN=1 makes the test binary the harness itself, so
	// that tests can run it as a process of its own.
	if os.Getenv("HARNESS_TEST_MAIN") == "1" {
		main()
	}
	code := m.Run()
	// Only what the tests started: calling the OnceValues functions
	// otherwise would start them.
	if mockStarted.Load() {
		if p, err := sharedMock(); err == nil {
			p.stop()
		}
	}
	if binaryDirMade.Load() {
		if bin, err := harnessBinary(); err == nil {
			os.RemoveAll(filepath.Dir(bin))
		}
	}
	os.Exit(code)
}

// runBinary runs the built binary with a time limit and returns its exit
// code and combined output.
func runBinary(t *testing.T, bin string, timeout time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("harness %s did not finish within %v:\n%s", strings.Join(args, " "), timeout, out)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("harness %s: %v", strings.Join(args, " "), err)
	}
	return code, string(out)
}
