package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/fixtures/integrity"
	"github.com/chaindata/harness/generators/records"
)

// generateInto runs harness generate in-process into dir.
func generateInto(t *testing.T, dir string, args ...string) {
	t.Helper()
	code, _, errOut := runCmd(t, append([]string{"generate", "--out", dir, "--quiet"}, args...)...)
	if code != exitOK {
		t.Fatalf("generate %v: exit %d: %s", args, code, errOut)
	}
}

// TestServeDataRefusesACutTransactionsFile cuts the transactions file of a
// world of about 100,000 transactions after its 52,783rd row: serve --data
// exits 1 before it listens, naming the file and the bytes missing.
//
// The world is written by the built binary: generating it in-process under
// the race detector took 16 s of CPU (against 2 s), and the generator is
// not what is tested here (serve --data, in-process, is).
func TestServeDataRefusesACutTransactionsFile(t *testing.T) {
	if testing.Short() {
		t.Skip("a world of 100,000 transactions")
	}
	dir := t.TempDir()
	if code, out := runBinary(t, mustHarnessBinary(t), 5*time.Minute, "generate", "--out", dir, "--quiet", "--scale", "10", "--format", "ndjson"); code != exitOK {
		t.Fatalf("generate: exit %d: %s", code, out)
	}
	path := filepath.Join(dir, "transactions.ndjson")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := bytes.Count(data, []byte("\n"))
	if rows < 99_000 || rows > 101_000 {
		t.Fatalf("%d transactions, want about 100,000", rows)
	}
	cut := 0
	for i := 0; i < 52_783; i++ {
		cut += bytes.IndexByte(data[cut:], '\n') + 1
	}
	if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "serve", "--data", dir, "--addr", "127.0.0.1:0", "--log-format", "none")
	want := fmt.Sprintf("transactions.ndjson is %d bytes, the manifest says %d: %d bytes missing", cut, len(data), len(data)-cut)
	if code != exitFailure || !strings.Contains(errOut, want) || strings.Contains(out, "serving") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 saying %q", code, out, errOut, want)
	}
}

// TestServeDataRefusesASwappedFile puts another seed's key rotations file
// in a world's directory: serve --data exits 1, naming it.
func TestServeDataRefusesASwappedFile(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	generateInto(t, a, "--seed", "1", "--scale", "0.05")
	generateInto(t, b, "--seed", "2", "--scale", "0.05")
	data, _ := os.ReadFile(filepath.Join(b, "keyrotations.json"))
	own, _ := os.ReadFile(filepath.Join(a, "keyrotations.json"))
	os.WriteFile(filepath.Join(a, "keyrotations.json"), data, 0o644)
	code, _, errOut := runCmd(t, "serve", "--data", a, "--addr", "127.0.0.1:0", "--log-format", "none")
	want := fmt.Sprintf("keyrotations.json is %d bytes, the manifest says %d", len(data), len(own))
	if code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 saying %q", code, errOut, want)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeDataAnswersADamagedBlockWithAnError edits a byte of the games
// file in place, keeping its size and time: serve --data starts, answers
// the newest games with a 500 error body naming the file and its block
// (not a 200 that is not JSON), logs a line naming them, and serves the
// rest.
func TestServeDataAnswersADamagedBlockWithAnError(t *testing.T) {
	dir := t.TempDir()
	generateInto(t, dir, "--scale", "0.05")
	path := filepath.Join(dir, "games.json")
	st, _ := os.Stat(path)
	data, _ := os.ReadFile(path)
	at := bytes.Index(data, []byte(`"epoch":"`)) + len(`"epoch":"`)
	data[at] = '"' // the row's JSON broken, as the issue saw
	os.WriteFile(path, data, 0o644)
	os.Chtimes(path, st.ModTime(), st.ModTime())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, &env{stdin: strings.NewReader(""), stdout: pw, stderr: &stderr},
			[]string{"serve", "--data", dir, "--addr", "127.0.0.1:0", "--log-format", "json"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no URL: %v; stderr %s", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	base := strings.Fields(line[strings.Index(line, "http://"):])[0]
	get := func(target string) (int, string) {
		resp, err := http.Get(base + target)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	status, body := get("/api/v2/games?pagination.first=2")
	wantInner := fmt.Sprintf(`"inner":"fixture file games.json: block %d (bytes `, at>>integrity.BlockShift)
	if status != http.StatusInternalServerError || !strings.HasPrefix(body, `{"code":13,"message":"Internal error","details":[{"@type":"type.googleapis.com/core.ErrorDetail","code":10000,"message":"fixture file damaged",`) || !strings.Contains(body, wantInner) {
		t.Errorf("the damaged page: %d %s", status, body)
	}
	if status, _ := get("/api/v2/snapshots?pagination.first=2"); status != http.StatusOK {
		t.Errorf("snapshots: %d", status)
	}
	cancel()
	<-done
	wantLog := fmt.Sprintf(`"file":%q,"block":%d`, path, at>>integrity.BlockShift)
	if log := stderr.String(); !strings.Contains(log, wantLog) {
		t.Errorf("stderr %s; want a line with %s", log, wantLog)
	}
}

// TestGenerateKilledOverAWorld runs the built binary's generate over an
// existing world and kills it (kill -9) after delays spread over a run, five
// times, each run over what the one before left, the seed alternating:
// each time the directory serves the world it held before or the new one,
// whole, never a mix; and a run let finish then leaves the files of a
// clean run, no generation nor spill file beside them.
func TestGenerateKilledOverAWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("runs generate seven times")
	}
	bin := mustHarnessBinary(t)
	refs := map[int64]*fixtures.Manifest{}
	var took time.Duration
	for _, seed := range []int64{1, 2} {
		dir := filepath.Join(t.TempDir(), "ref")
		start := time.Now()
		if code, out := runBinary(t, bin, 5*time.Minute, "generate", "--seed", fmt.Sprint(seed), "--scale", "2", "--format", "ndjson", "--quiet", "--out", dir); code != 0 {
			t.Fatalf("generate: %s", out)
		}
		took = max(took, time.Since(start))
		m, err := fixtures.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		refs[seed] = m
	}
	dir := filepath.Join(t.TempDir(), "world")
	if code, out := runBinary(t, bin, 5*time.Minute, "generate", "--seed", "1", "--scale", "2", "--format", "ndjson", "--quiet", "--out", dir); code != 0 {
		t.Fatalf("generate: %s", out)
	}
	held := int64(1)
	for i, frac := range []float64{0.15, 0.35, 0.55, 0.75, 0.95} {
		seed := int64(2 - i%2)
		cmd := exec.Command(bin, "generate", "--seed", fmt.Sprint(seed), "--scale", "2", "--format", "ndjson", "--quiet", "--out", dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(frac * float64(took)))
		cmd.Process.Kill() // SIGKILL
		cmd.Wait()
		held = checkWhole(t, dir, refs, held, seed)
		t.Logf("killed after %.0f%% of a run: the directory serves seed %d", frac*100, held)
	}
	if code, out := runBinary(t, bin, 5*time.Minute, "generate", "--seed", "2", "--scale", "2", "--format", "ndjson", "--quiet", "--out", dir); code != 0 {
		t.Fatalf("generate: %s", out)
	}
	checkWhole(t, dir, refs, 2, 2)
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "[games.ndjson harness-index.bin keyrotations.ndjson manifest.json networkparameters.ndjson snapshots.ndjson transactions.ndjson]"; fmt.Sprint(names) != want {
		t.Errorf("after a whole run the directory holds %v, want %s", names, want)
	}
}

// checkWhole checks dir serves the world of seed was or of seed now whole
// (the manifest's and every file's sums those of a run of that seed, every
// block as indexed, the index as saved), and returns the seed it serves.
func checkWhole(t *testing.T, dir string, refs map[int64]*fixtures.Manifest, was, now int64) int64 {
	t.Helper()
	m, info, err := fixtures.Open(dir)
	if err != nil {
		t.Fatalf("the directory is not served: %v", err)
	}
	defer m.Close()
	seed := *m.Manifest.Seed
	ref := refs[seed]
	if (seed != was && seed != now) || ref == nil {
		t.Fatalf("the directory serves seed %d, want %d or %d", seed, was, now)
	}
	if info.Rebuilt != "" {
		t.Errorf("the index was rebuilt: %s", info.Rebuilt)
	}
	for _, l := range records.Listings {
		got, want := m.Manifest.Listings[l], ref.Listings[l]
		if filepath.Base(got.File) != want.File || got.Count != want.Count || got.Size != want.Size || got.SHA256 != want.SHA256 {
			t.Errorf("%s: the manifest says %+v, a run of seed %d %+v", l, got, seed, want)
		}
		if s := integrity.Sum(m.File(l), integrity.BlockShift); s.SHA256 != want.SHA256 {
			t.Errorf("%s: the file served is not seed %d's", l, seed)
		}
	}
	if err := m.CheckAll(); err != nil {
		t.Error(err)
	}
	return seed
}

// TestServeDataRebuildsADamagedIndex flips one bit in the middle of
// harness-index.bin, as the issue saw splice two rows into a page that is
// not JSON: serve --data finds it by its checksum, says so, indexes the
// files again and answers every page as the undamaged directory does.
func TestServeDataRebuildsADamagedIndex(t *testing.T) {
	dir := t.TempDir()
	generateInto(t, dir, "--scale", "0.05", "--format", "ndjson")
	pages := []string{"/api/v2/games?pagination.first=3", "/transactions?first=20", "/api/v2/snapshots?pagination.last=4",
		"/api/v2/core/keys/ethereum/rotations?pagination.first=5", "/api/v2/network/parameters?pagination.first=7"}
	ask := func(base string) []string {
		var got []string
		for _, p := range pages {
			resp, err := http.Get(base + p)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = append(got, fmt.Sprintf("%d %s", resp.StatusCode, body))
		}
		return got
	}
	base, stop := startServe(t, "--data", dir)
	want := ask(base)
	stop()
	path := filepath.Join(dir, fixtures.IndexFile)
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 0x08
	os.WriteFile(path, data, 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, &env{stdin: strings.NewReader(""), stdout: pw, stderr: &stderr},
			[]string{"serve", "--data", dir, "--addr", "127.0.0.1:0", "--log-format", "none"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no URL: %v; stderr %s", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	got := ask(strings.Fields(line[strings.Index(line, "http://"):])[0])
	cancel()
	<-done
	if !strings.Contains(stderr.String(), "(the index was unreadable: checksum ") {
		t.Errorf("stderr %q, want it to say the index was rebuilt for its checksum", stderr.String())
	}
	for i := range pages {
		if got[i] != want[i] || !strings.HasPrefix(got[i], "200 ") {
			t.Errorf("%s: %.200s, want %.200s", pages[i], got[i], want[i])
		}
	}
}
