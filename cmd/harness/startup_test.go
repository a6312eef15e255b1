package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/store"
)

// TestServeRefusesWhatMemoryCannotHold runs serve in-process with the
// available memory given: a world or fixtures estimated above it are refused
// with exit 2 and the way to serve from disk, before anything is built;
// anything else goes on to build (and, the context being cancelled, stops
// there with exit 1).
func TestServeRefusesWhatMemoryCannotHold(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCmd(t, "generate", "--scale", "0.05", "--out", dir, "--quiet"); code != exitOK {
		t.Fatal(errOut)
	}
	fixtures, err := store.FixturesMemoryEstimate(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Small worlds only: a build that starts goes on in the background of
	// the test after run returns.
	scale1 := store.MemoryEstimate(1)
	const gib = 1 << 30
	tests := []struct {
		name  string
		args  []string
		avail uint64
		known bool
		want  int
		// say are in the standard error of a refusal.
		say []string
	}{
		{"a world above the memory", []string{"--scale", "100"}, gib, true, exitUsage, []string{
			"harness serve: --scale 100 needs about " + formatBytes(store.MemoryEstimate(100)) + " of memory; 1.0 GiB is available.",
			"\n  harness generate --scale 100 --format ndjson --out DIR\n  harness serve --data DIR\n"}},
		{"the seed goes with it", []string{"--scale", "100", "--seed", "5"}, gib, true, exitUsage, []string{
			"harness generate --seed 5 --scale 100 --format ndjson --out DIR"}},
		{"one byte short", []string{"--scale", "1"}, scale1 - 1, true, exitUsage, []string{"--scale 1 needs about"}},
		{"just enough", []string{"--scale", "1"}, scale1, true, exitFailure, nil},
		{"a small world", []string{"--scale", "0.01"}, gib, true, exitFailure, nil},
		// Unknown is not nothing: the small world is not refused.
		{"memory unknown", []string{"--scale", "0.01"}, 0, false, exitFailure, nil},
		{"fixtures above the memory", []string{"--data", dir}, fixtures - 1, true, exitUsage, []string{
			"harness serve: the fixtures in " + dir + " need about", "of memory to serve;"}},
		{"fixtures that fit", []string{"--data", dir}, fixtures, true, exitFailure, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
				memAvailable: func() (uint64, bool) { return tc.avail, tc.known }}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // a build that starts is interrupted at once
			code := run(ctx, e, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "none"}, tc.args...))
			if code != tc.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.want, errOut.String())
			}
			for _, s := range tc.say {
				if !strings.Contains(errOut.String(), s) {
					t.Errorf("stderr does not say %q:\n%s", s, errOut.String())
				}
			}
			building := strings.Contains(errOut.String(), "building the")
			if refused := tc.want == exitUsage; building == refused {
				t.Errorf("refused %v, yet started building %v:\n%s", refused, building, errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("standard output %q, want nothing: it neither built nor served", out.String())
			}
		})
	}
}

// TestServeStopsDuringStartUp sends SIGTERM to harness serve while it builds
// a world that takes seconds: it exits non-zero within a second, never
// having said that it serves.
func TestServeStopsDuringStartUp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a world of scale 20 (about a second of CPU before the signal)")
	}
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0", "--scale", "20", "--log-format", "none")
	cmd.Env = append(os.Environ(), "HARNESS_TEST_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	lines := bufio.NewReader(stderr)
	first, err := lines.ReadString('\n')
	if err != nil || !strings.Contains(first, "building the generated world") {
		cmd.Process.Kill()
		t.Fatalf("first line on stderr %q (%v), want that it builds the world", first, err)
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(lines)
		rest <- string(b)
		done <- cmd.Wait()
	}()
	time.Sleep(500 * time.Millisecond) // well into the build (several seconds)
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		took := time.Since(signalled)
		if err == nil {
			t.Errorf("exit 0 after SIGTERM during start-up, want non-zero")
		}
		if took > time.Second {
			t.Errorf("exited %v after SIGTERM, want within 1 s", took)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("harness serve did not exit within 30 s of SIGTERM during start-up")
	}
	if out.Len() != 0 {
		t.Errorf("standard output %q, want nothing: it must never say it serves", out.String())
	}
	if msg := <-rest; !strings.Contains(msg, "interrupted while building the world") {
		t.Errorf("stderr %q does not say the build was interrupted", msg)
	}
}

// TestAvailableMemory reads MemAvailable and the cgroup limits from fake
// /proc and /sys trees.
func TestAvailableMemory(t *testing.T) {
	meminfo := "MemTotal:       24000000 kB\nMemFree:        1000 kB\nMemAvailable:   20000000 kB\nBuffers:  1 kB\n"
	const memAvail = 20000000 << 10
	tests := []struct {
		name  string
		files map[string]string
		want  uint64
		ok    bool
	}{
		{"no meminfo: not Linux", map[string]string{}, 0, false},
		{"no MemAvailable (old kernels)", map[string]string{"proc/meminfo": "MemTotal: 1000 kB\n"}, 0, false},
		{"MemAvailable not a number", map[string]string{"proc/meminfo": "MemAvailable: lots kB\n"}, 0, false},
		{"MemAvailable", map[string]string{"proc/meminfo": meminfo}, memAvail, true},
		{"cgroup v2 without a limit", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory.max": "max\n", "sys/fs/cgroup/memory.current": "100\n"}, memAvail, true},
		{"cgroup v2 limit below MemAvailable", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory.max": "4294967296\n", "sys/fs/cgroup/memory.current": "1073741824\n",
			"sys/fs/cgroup/memory.stat": "anon 1\nfile 536870912\ninactive_file 268435456\n"}, 3<<30 + 256<<20, true},
		{"cgroup v2 limit above MemAvailable", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory.max": "1099511627776\n", "sys/fs/cgroup/memory.current": "0\n"}, memAvail, true},
		{"cgroup v2 over its limit", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory.max": "1000\n", "sys/fs/cgroup/memory.current": "2000\n"}, 0, true},
		{"cgroup v2 at its limit", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory.max": "1000\n", "sys/fs/cgroup/memory.current": "1000\n"}, 0, true},
		{"cgroup v2 with no usage file", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory.max": "1000\n"}, memAvail, true},
		{"cgroup v1 without a limit", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "5\n"}, memAvail, true},
		{"cgroup v1 limit", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648\n", "sys/fs/cgroup/memory/memory.usage_in_bytes": "1073741824\n",
			"sys/fs/cgroup/memory/memory.stat": "cache 5\ntotal_inactive_file 1073741824\n"}, 2 << 30, true},
		{"inactive files above usage are not counted", map[string]string{"proc/meminfo": meminfo,
			"sys/fs/cgroup/memory.max": "1000\n", "sys/fs/cgroup/memory.current": "600\n",
			"sys/fs/cgroup/memory.stat": "inactive_file 700\n"}, 400, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tc.files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := availableMemoryIn(root)
			if got != tc.want || ok != tc.ok {
				t.Errorf("availableMemoryIn = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "0 KiB"}, {1023, "0 KiB"}, {4096, "4 KiB"}, {1 << 20, "1 MiB"}, {(1 << 30) - 1, "1023 MiB"},
		{1 << 30, "1.0 GiB"}, {4_500_000_000, "4.2 GiB"},
	}
	for _, tc := range tests {
		if got := formatBytes(tc.n); got != tc.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
