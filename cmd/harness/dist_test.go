package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// distTargets are the platforms make dist builds for, as the README says.
var distTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// testStamp is a version to stamp that no build has by chance.
func testStamp() string {
	return fmt.Sprintf("v0.0.0-test.%d", time.Now().UnixNano())
}

// runMake runs make in the module root with args and returns its output,
// failing the test when it fails or takes longer than timeout.
func runMake(t *testing.T, timeout time.Duration, args ...string) string {
	t.Helper()
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not on the PATH (Debian package make)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mk, append([]string{"-C", moduleRoot, "GO=" + goTool()}, args...)...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("make %s did not finish within %v:\n%s", strings.Join(args, " "), timeout, out)
	}
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestDist builds one release binary with make dist, for a platform other
// than this one, and checks what docs/install.md promises of it: its name, its
// checksum in SHA256SUMS, a static build without local paths or symbols,
// and the version stamped in. That make dist builds every platform, with
// the version of git describe, is checked on the recipe (make -n).
func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles a release binary with make dist (a minute or more); skipped under -short")
	}
	target := "windows/arm64"
	if runtime.GOOS+"/"+runtime.GOARCH == target {
		target = "linux/amd64"
	}
	goos, goarch, _ := strings.Cut(target, "/")
	dir := t.TempDir()
	stamp := testStamp()
	runMake(t, 15*time.Minute, "dist", "DIST="+dir, "DIST_TARGETS="+target, "VERSION="+stamp)

	name := "harness-" + goos + "-" + goarch
	if goos == "windows" {
		name += ".exe"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"SHA256SUMS", name}; !slices.Equal(names, want) {
		t.Fatalf("make dist wrote %v, want %v", names, want)
	}
	bin := filepath.Join(dir, name)
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(sum[:]) + "  " + name + "\n"; string(sums) != want {
		t.Errorf("SHA256SUMS is %q, want %q (as sha256sum -c reads it)", sums, want)
	}

	// go version -m: the build settings Go recorded. (-trimpath leaves
	// -ldflags out of them, so the stamp is looked for in the binary.)
	out, err := exec.Command(goTool(), "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	settings := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "build" {
			k, v, _ := strings.Cut(f[1], "=")
			settings[k] = v
		}
		if len(f) >= 2 && f[0] == "path" && f[1] != "github.com/chaindata/harness/cmd/harness" {
			t.Errorf("go version -m: path %s, want github.com/chaindata/harness/cmd/harness", f[1])
		}
	}
	for k, want := range map[string]string{"GOOS": goos, "GOARCH": goarch, "CGO_ENABLED": "0", "-trimpath": "true"} {
		if settings[k] != want {
			t.Errorf("go version -m: %s=%q, want %q\n%s", k, settings[k], want, out)
		}
	}
	// -X of a variable that is not there is no error: the linker drops
	// it, and the string is not in the binary.
	if !bytes.Contains(data, []byte(stamp)) {
		t.Errorf("the version %s is not stamped into %s (-X main.version)", stamp, name)
	}
	if home, err := os.Getwd(); err == nil && bytes.Contains(data, []byte(filepath.Dir(filepath.Dir(home)))) {
		t.Errorf("%s holds the path of the checkout; -trimpath leaves local paths out", name)
	}
	if syms, err := symbolCount(goos, bin); err != nil {
		t.Error(err)
	} else if syms != 0 {
		t.Errorf("%s has %d symbols; -s -w strips them", name, syms)
	}

	// The recipe as make would run it with the defaults.
	recipe := runMake(t, time.Minute, "-n", "dist", "DIST="+dir)
	for _, tg := range distTargets {
		if !strings.Contains(recipe, tg) {
			t.Errorf("make dist does not build %s:\n%s", tg, recipe)
		}
	}
	for _, flag := range []string{"CGO_ENABLED=0", "-trimpath", `-ldflags "-s -w -X main.version=`} {
		if !strings.Contains(recipe, flag) {
			t.Errorf("make dist builds without %s:\n%s", flag, recipe)
		}
	}
	if git, err := exec.LookPath("git"); err == nil {
		if d, err := exec.Command(git, "-C", moduleRoot, "describe", "--tags", "--always", "--dirty").Output(); err == nil {
			if want := "-X main.version=" + strings.TrimSpace(string(d)) + `"`; !strings.Contains(recipe, want) {
				t.Errorf("make dist does not stamp git describe (%s):\n%s", want, recipe)
			}
		}
	}
}

// symbolCount returns the number of symbols in the symbol table of the
// executable bin of goos, with DWARF sections counted as symbols.
func symbolCount(goos, bin string) (int, error) {
	switch goos {
	case "windows":
		f, err := pe.Open(bin)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		n := len(f.Symbols)
		for _, s := range f.Sections {
			if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
				n++
			}
		}
		return n, nil
	case "darwin":
		f, err := macho.Open(bin)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		n := 0
		if f.Symtab != nil {
			n = len(f.Symtab.Syms)
		}
		for _, s := range f.Sections {
			if strings.HasPrefix(s.Name, "__debug_") || strings.HasPrefix(s.Name, "__zdebug_") {
				n++
			}
		}
		return n, nil
	default:
		f, err := elf.Open(bin)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		syms, err := f.Symbols()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			return 0, err
		}
		n := len(syms)
		for _, s := range f.Sections {
			if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
				n++
			}
		}
		return n, nil
	}
}

// docker runs the docker client with args, bounded by timeout, and returns
// its standard output (trimmed) and, on failure, an error with its
// standard error.
func docker(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return "", fmt.Errorf("docker %s: no answer within %v", strings.Join(args, " "), timeout)
	}
	if err != nil {
		return "", fmt.Errorf("docker %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// mustDocker is docker, failing the test on an error.
func mustDocker(t *testing.T, timeout time.Duration, args ...string) string {
	t.Helper()
	out, err := docker(timeout, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dockerfileBases returns the images the Dockerfile's stages start FROM
// (not scratch, nor an earlier stage).
func dockerfileBases(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var bases []string
	stages := map[string]bool{"scratch": true}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || !strings.EqualFold(fields[0], "FROM") {
			continue
		}
		fields = slices.DeleteFunc(fields[1:], func(s string) bool { return strings.HasPrefix(s, "--") })
		if len(fields) == 0 {
			continue
		}
		if !stages[strings.ToLower(fields[0])] {
			bases = append(bases, fields[0])
		}
		if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
			stages[strings.ToLower(fields[2])] = true
		}
	}
	return bases, sc.Err()
}

// TestDockerImage builds the image (make image) and runs it as the README
// says, published on the host's loopback: it serves the built-in world on
// port 8080 of the container as a non-root user, prints the stamped version,
// and stops at docker stop. Where the Dockerfile's base images cannot be
// pulled (a machine without their registries), it builds the same image
// FROM scratch out of make dist's linux binary (make image-scratch). It is
// skipped where no Docker daemon answers.
func TestDockerImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a container image; skipped under -short")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker client on the PATH; with one and a daemon (as root on Debian: apt-get install docker.io, then dockerd &) this test builds and runs the image")
	}
	if _, err := docker(30*time.Second, "info", "--format", "{{.ServerVersion}}"); err != nil {
		t.Skipf("no Docker daemon answers (%v); where one can start (as root on Debian: apt-get install docker.io, then dockerd &) this test builds and runs the image", err)
	}
	stamp := testStamp()
	tag := "harness-test:" + strings.TrimPrefix(stamp, "v")
	t.Cleanup(func() { docker(time.Minute, "rmi", "-f", tag) })

	bases, err := dockerfileBases(filepath.Join(moduleRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bases) == 0 {
		t.Fatal("the Dockerfile starts FROM no image")
	}
	var unpulled []string
	for _, img := range bases {
		if _, err := docker(time.Minute, "image", "inspect", img); err == nil {
			continue
		}
		if _, err := docker(5*time.Minute, "pull", img); err != nil {
			unpulled = append(unpulled, err.Error())
		}
	}
	if len(unpulled) == 0 {
		t.Logf("make image: the Dockerfile, FROM %s", strings.Join(bases, " and "))
		runMake(t, 20*time.Minute, "image", "IMAGE="+tag, "VERSION="+stamp)
	} else {
		t.Logf("the Dockerfile's base images cannot be pulled here:\n  %s\nbuilding the image FROM scratch instead (make image-scratch, Dockerfile.scratch)", strings.Join(unpulled, "\n  "))
		runMake(t, 20*time.Minute, "image-scratch", "DIST="+t.TempDir(), "IMAGE="+tag, "VERSION="+stamp)
	}

	// What the image says of itself.
	var cfg struct {
		User         string
		ExposedPorts map[string]any
		Entrypoint   []string
		Cmd          []string
	}
	if err := json.Unmarshal([]byte(mustDocker(t, time.Minute, "image", "inspect", "--format", "{{json .Config}}", tag)), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.User == "" || cfg.User == "root" || strings.HasPrefix(cfg.User, "0:") || cfg.User == "0" {
		t.Errorf("the image runs as user %q, want a non-root one", cfg.User)
	}
	if _, ok := cfg.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("the image exposes %v, want 8080/tcp", cfg.ExposedPorts)
	}
	if got := strings.Join(append(cfg.Entrypoint, cfg.Cmd...), " "); got != "/harness serve --addr 0.0.0.0:8080" {
		t.Errorf("the image runs %q, want /harness serve --addr 0.0.0.0:8080", got)
	}
	size, err := docker(time.Minute, "image", "inspect", "--format", "{{.Size}}", tag)
	if err != nil {
		t.Fatal(err)
	}
	var bytesSize int64
	fmt.Sscan(size, &bytesSize)
	t.Logf("image %s: %d MB, user %s", tag, bytesSize>>20, cfg.User)
	if bytesSize > 64<<20 {
		t.Errorf("the image is %d MB, want a small one (at most 64 MB)", bytesSize>>20)
	}

	// Another command than serve, and the version stamped.
	if v := mustDocker(t, time.Minute, "run", "--rm", tag, "version"); !strings.HasPrefix(v, "harness "+stamp+" ") || !strings.HasSuffix(v, " linux/"+runtime.GOARCH) {
		t.Errorf("docker run %s version printed %q, want harness %s ... linux/%s", tag, v, stamp, runtime.GOARCH)
	}

	// As documented: -p 127.0.0.1:8080:8080, here with a free port of
	// the host's loopback.
	cid := mustDocker(t, time.Minute, "run", "-d", "-p", "127.0.0.1::8080", tag)
	t.Cleanup(func() { docker(time.Minute, "rm", "-f", cid) })
	var hostPort string
	for _, line := range strings.Split(mustDocker(t, time.Minute, "port", cid, "8080/tcp"), "\n") {
		if strings.HasPrefix(line, "127.0.0.1:") {
			hostPort = strings.TrimSpace(line)
		}
	}
	if hostPort == "" {
		t.Fatalf("docker port %s 8080/tcp names no port of 127.0.0.1", cid)
	}
	url := "http://" + hostPort + "/api/v2/network/parameters?pagination.first=2"
	client := &http.Client{Timeout: 5 * time.Second}
	var body []byte
	deadline := time.Now().Add(startTimeout)
	for {
		resp, err := client.Get(url)
		if err == nil {
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				break
			}
			err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		if time.Now().After(deadline) {
			logs, _ := docker(time.Minute, "logs", cid)
			t.Fatalf("GET %s: %v, after %v\ncontainer log:\n%s", url, err, startTimeout, logs)
		}
		time.Sleep(250 * time.Millisecond)
	}
	var page struct {
		NetworkParameters struct {
			Edges []json.RawMessage `json:"edges"`
		} `json:"networkParameters"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.NetworkParameters.Edges) != 2 {
		t.Errorf("GET %s: want a page of 2 network parameters, got %s (%v)", url, body, err)
	}

	// docker stop sends SIGTERM to serve, the container's first process:
	// it stops serving and exits 0.
	mustDocker(t, time.Minute, "stop", cid)
	if code := mustDocker(t, time.Minute, "inspect", "--format", "{{.State.ExitCode}}", cid); code != "0" {
		logs, _ := docker(time.Minute, "logs", cid)
		t.Errorf("after docker stop the container exited %s, want 0\n%s", code, logs)
	}
	logs, err := docker(time.Minute, "logs", cid)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"serving generated world (seed 1, scale 1) on http://", "stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the container's output does not say %q:\n%s", want, logs)
		}
	}
}
