package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/schemas"
)

func TestServeAnswersAndShutsDownGracefully(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05")
	resp, err := http.Get(base + "/api/v2/network/parameters?pagination.first=5")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if err := schemas.MustLoad("ListNetworkParametersResponse").Validate(body); err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("X-Block-Height") == "" {
		t.Error("no X-Block-Height header")
	}
	if code := stop(); code != exitOK {
		t.Fatalf("serve exited %d after shutdown, want 0", code)
	}
	if _, err := http.Get(base + "/api/v2/snapshots"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestServeReplaysGeneratedFixtures(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCmd(t, "generate", "--seed", "4", "--scale", "0.05", "--out", dir); code != exitOK {
		t.Fatal(errOut)
	}
	fixtures, stopFixtures := startServe(t, "--data", dir)
	defer stopFixtures()
	generated, stopGenerated := startServe(t, "--seed", "4", "--scale", "0.05")
	defer stopGenerated()
	for _, path := range []string{
		"/api/v2/games?pagination.first=3",
		"/api/v2/snapshots?pagination.last=4&pagination.newestFirst=false",
		"/api/v2/core/keys/ethereum/rotations?pagination.first=7",
		"/api/v2/network/parameters",
		"/transactions?first=20",
	} {
		a, b := get(t, fixtures+path), get(t, generated+path)
		if a != b {
			t.Errorf("%s: the replay of the fixtures differs from the generated world", path)
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestServeRefusesBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"data with seed", []string{"serve", "--data", "x", "--seed", "3"}, "cannot be combined"},
		{"data with a world", []string{"serve", "--data", "x", "--world", "edges"}, "it cannot be combined with --world"},
		{"unknown world", []string{"serve", "--world", "Edges"}, `--world: unknown world "Edges" (want default or edges); did you mean "edges"?`},
		{"edge world with a seed", []string{"serve", "--world", "edges", "--seed", "3"}, "--world edges is one fixed world: it takes no --seed or --scale"},
		{"scale out of range", []string{"serve", "--scale", "0.001"}, "--scale must be between"},
		{"fail rate above 1", []string{"serve", "--fail-rate", "1.5"}, "--fail-rate must be between"},
		{"negative latency", []string{"serve", "--latency", "-1s"}, "--latency must not be negative"},
		{"zero page size", []string{"serve", "--max-page-size", "0"}, "page sizes must be positive"},
		{"default above max", []string{"serve", "--default-page-size", "6000"}, "is above --max-page-size"},
		{"bad log format", []string{"serve", "--log-format", "xml"}, "--log-format must be"},
		{"latency not a duration", []string{"serve", "--latency", "soon"}, `--latency: "soon" is not a duration`},
		{"an unknown clock", []string{"serve", "--clock", "sundial"}, "--clock must be wall or manual"},
		{"a negative block interval", []string{"serve", "--block-interval", "-1s"}, "--block-interval must not be negative"},
		{"manual clock with an interval", []string{"serve", "--clock", "manual", "--block-interval", "1s"}, "drop --block-interval"},
		{"genesis without an interval", []string{"serve", "--genesis-time", "2026-01-01T00:00:00Z"}, "--genesis-time needs --block-interval"},
		{"genesis not a time", []string{"serve", "--block-interval", "1s", "--genesis-time", "yesterday"}, "want an RFC 3339 time"},
		{"negative max blocks", []string{"serve", "--max-blocks", "-1"}, "--max-blocks must not be negative"},
		{"fixtures that grow", []string{"serve", "--data", "x", "--block-interval", "1s"}, "fixtures, which cannot grow"},
		{"fixtures on a manual clock", []string{"serve", "--data", "x", "--clock", "manual"}, "fixtures, which cannot grow"},
		{"fixtures with a bound", []string{"serve", "--data", "x", "--max-blocks", "5"}, "fixtures, which cannot grow"},
		{"manual clock without control", []string{"serve", "--clock", "manual", "--no-control"}, "--no-control turns off"},
		{"transactions under the control API", []string{"serve", "--transactions-prefix", "harness/x"}, "under /harness/"},
		{"no fault file", []string{"serve", "--faults", "/nonexistent/faults.yaml"}, "--faults: open /nonexistent/faults.yaml"},
		{"a bad fault file", []string{"serve", "--faults", os.DevNull}, "fault rules: empty"},
		{"a negative write timeout", []string{"serve", "--write-timeout", "-1s"}, "--write-timeout must not be negative"},
		{"a zero write rate", []string{"serve", "--min-write-rate", "0"}, "--min-write-rate must be positive"},
		{"a zero header limit", []string{"serve", "--max-header-bytes", "0"}, "--max-header-bytes must be positive"},
		{"a negative journal size", []string{"serve", "--journal-size", "-1"}, "--journal-size must not be negative"},
		{"a negative page cache", []string{"serve", "--page-cache", "-1"}, "--page-cache must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantUsageError(t, tc.args, tc.want)
		})
	}
}

func TestServeReportsMissingFixtures(t *testing.T) {
	code, _, errOut := runCmd(t, "serve", "--data", t.TempDir())
	if code != exitFailure || !strings.Contains(errOut, "manifest.json") {
		t.Fatalf("exit %d, stderr %q; want a failure naming the manifest", code, errOut)
	}
}

func TestUnknownCommand(t *testing.T) {
	code, _, errOut := runCmd(t, "frobnicate")
	if code != exitUsage || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	code, out, _ := runCmd(t, "help")
	if code != exitOK || !strings.Contains(out, "serve") {
		t.Fatalf("help: exit %d, %q", code, out)
	}
}

// post sends a POST to the control API and requires a 200.
func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/yaml", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: status %d: %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// getFull returns an answer's status, block headers and body, as one text.
func getFull(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s %s\n%s", resp.StatusCode, resp.Header.Get("X-Block-Height"), resp.Header.Get("X-Block-Timestamp"), b)
}

// TestLiveChainIsTheSameInTwoProcesses advances the chains of two harness
// serve processes of the same seed by the same number of blocks, in one step
// in one and in three in the other: every listing answers byte for byte the
// same in both, and the transactions added are exactly those the seed's
// world grows, block by block.
func TestLiveChainIsTheSameInTwoProcesses(t *testing.T) {
	t.Parallel()
	const blocks = 300 // a new epoch (the first block) and a snapshot (block 250)
	args := []string{"--clock", "manual", "--seed", "5", "--scale", "0.05"}
	a, b := startServeProcess(t, args...), startServeProcess(t, args...)
	post(t, a+"/harness/advance?blocks=300", "")
	post(t, b+"/harness/advance?blocks=1", "")
	post(t, b+"/harness/advance?blocks=249", "")
	post(t, b+"/harness/advance?blocks=50", "")
	for _, q := range []string{
		"/harness/status",
		"/transactions?first=2000", "/transactions?last=3", "/transactions?cmdTypes=Submit+Order&first=100",
		"/api/v2/games?pagination.first=60", "/api/v2/games?pagination.newestFirst=false&pagination.first=5",
		"/api/v2/snapshots?pagination.first=5", "/api/v2/core/keys/ethereum/rotations?pagination.first=5",
		"/api/v2/network/parameters?pagination.first=5",
	} {
		if x, y := getFull(t, a+q), getFull(t, b+q); x != y {
			t.Errorf("%s: the two processes answer differently:\n%.400s\n%.400s", q, x, y)
		}
	}

	// The rows the same seed's world grows, made in this process.
	w, err := world.Generate(world.Options{Seed: 5, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	var txs [][]byte
	var snapshots, games int
	for range blocks {
		blk, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		for i := range blk.Transactions {
			txs = append(txs, blk.Transactions[i].JSON)
		}
		if blk.Snapshot != nil {
			snapshots++
		}
		games += len(blk.Games)
	}
	if snapshots == 0 || games == 0 {
		t.Fatalf("%d blocks grew %d snapshots and %d games; the test tests less than it says", blocks, snapshots, games)
	}
	slices.Reverse(txs) // the listing is newest first
	want := `{"transactions":[` + string(bytes.Join(txs, []byte(","))) + "]}\n"
	if got := get(t, fmt.Sprintf("%s/transactions?first=%d", a, len(txs))); got != want {
		t.Errorf("the %d newest transactions are not the ones the seed grows:\n got %.300s\nwant %.300s", len(txs), got, want)
	}
	var st mockserver.Status
	if err := json.Unmarshal([]byte(get(t, a+"/harness/status")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Counts["transactions"] != len(w.Transactions)+len(txs) || st.Counts["games"] != len(w.Games)+games ||
		st.Counts["snapshots"] != len(w.Snapshots)+snapshots || st.LatestBlock != w.LatestBlock+blocks {
		t.Errorf("status %+v: want %d more transactions, %d more games, %d more snapshots, %d more blocks than the world's",
			st, len(txs), games, snapshots, blocks)
	}
}

// TestServeBlockInterval runs the wall clock for real: blocks arrive every
// interval until --max-blocks, and the status says so.
func TestServeBlockInterval(t *testing.T) {
	base, stop := startServe(t, "--scale", "0.05", "--block-interval", "10ms", "--max-blocks", "5")
	defer stop()
	status := func() mockserver.Status {
		var st mockserver.Status
		if err := json.Unmarshal([]byte(get(t, base+"/harness/status")), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	deadline := time.Now().Add(20 * time.Second)
	for status().Chain.BlocksAdded < 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	st := status()
	if st.Chain == nil || *st.Chain != (mockserver.ChainStatus{BlocksAdded: 5, MaxBlocks: 5, Clock: "wall", BlockInterval: "10ms"}) {
		t.Errorf("chain %+v, want 5 blocks added on the wall clock, no more", st.Chain)
	}
}

// TestServeFaultFlags checks --faults, --latency and --fail-rate make the
// rules the status lists, and that the rules apply.
func TestServeFaultFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "faults.yaml")
	rules := "rules:\n  - name: no snapshots\n    listing: snapshots\n    fault: status=503; retry-after=3\n"
	if err := os.WriteFile(file, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	base, stop := startServe(t, "--scale", "0.05", "--faults", file, "--latency", "1ms", "--fail-rate", "0.5")
	defer stop()
	resp, err := http.Get(base + "/api/v2/snapshots")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("snapshots: status %d, Retry-After %q; want the rule's 503", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	var st mockserver.Status
	if err := json.Unmarshal([]byte(get(t, base+"/harness/status")), &st); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range st.Faults.Rules {
		names = append(names, r.Name)
	}
	if fmt.Sprint(names) != "[no snapshots --latency --fail-rate]" || st.Faults.Injected["status"] == 0 {
		t.Errorf("rules %v, injected %v", names, st.Faults.Injected)
	}
}

// TestServeNoControl checks --no-control leaves /harness/ to the API's 404,
// and that the banner says what it leaves: no word of POST /harness/advance.
func TestServeNoControl(t *testing.T) {
	base, stop := startListener(t, "serve", "--addr", "--scale", "0.05", "--no-control")
	resp, err := http.Get(base + "/harness/status")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/harness/status with --no-control: status %d, want 404", resp.StatusCode)
	}
	code, out := stop()
	if code != exitOK {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"the world does not grow", "control API: off (--no-control)"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --no-control printed %q, which does not say %q", out, want)
		}
	}
	if strings.Contains(out, "/harness/") {
		t.Errorf("serve --no-control printed %q, naming the control API it turned off", out)
	}
}

// TestServeFaultsFileIsCapped checks serve --faults takes a rule file of up
// to mockserver.MaxFaultsBytes, as POST /harness/faults does, and refuses a
// larger one, or an endless one, with a usage error (exit 2) before it reads
// it whole.
func TestServeFaultsFileIsCapped(t *testing.T) {
	const limit = mockserver.MaxFaultsBytes
	dir := t.TempDir()
	rules := "rules:\n  - name: padded\n    listing: snapshots\n    fault: status=503\n#"
	file := func(name string, size int64) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(rules), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil { // sparse: 123 MB take no disk
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		path string
		want string
	}{
		{"one byte over", file("over.yaml", limit+1), fmt.Sprintf("over.yaml is %d bytes, above the limit of %d bytes (1 MiB), the largest rule file taken here as by POST /harness/faults", limit+1, limit)},
		{"the issue's 123 MB", file("huge.yaml", 123_000_000), "huge.yaml is 123000000 bytes, above the limit of 1048576 bytes (1 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantUsageError(t, []string{"serve", "--faults", tc.path}, tc.want)
		})
	}

	t.Run("exactly the limit", func(t *testing.T) {
		path := filepath.Join(dir, "limit.yaml") // the comment padded with x, not zeros
		if err := os.WriteFile(path, []byte(rules+strings.Repeat("x", limit-len(rules))), 0o644); err != nil {
			t.Fatal(err)
		}
		base, stop := startServe(t, "--scale", "0.05", "--faults", path)
		defer stop()
		var st mockserver.Status
		if err := json.Unmarshal([]byte(get(t, base+"/harness/status")), &st); err != nil {
			t.Fatal(err)
		}
		if len(st.Faults.Rules) != 1 || st.Faults.Rules[0].Name != "padded" {
			t.Errorf("rules %+v, want the file's", st.Faults.Rules)
		}
	})
}

// TestReadCapped checks readCapped around its limit: up to it the file
// whole, beyond it errTooLarge saying the size when the file has one.
func TestReadCapped(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		limit   int64
		size    int    // of the data read, when no error
		wantErr string // "" for none
		tooBig  bool
	}{
		{"empty", write("empty", 0), 10, 0, "", false},
		{"under", write("under", 9), 10, 9, "", false},
		{"at the limit", write("at", 10), 10, 10, "", false},
		{"one over", write("over", 11), 10, 0, "over is 11 bytes, above the limit of 10 bytes", true},
		{"far over", write("far", 5000), 10, 0, "far is 5000 bytes, above the limit", true},
		{"a pipe of more", fifo(t, filepath.Join(dir, "pipe"), 1<<20), 10, 0, "pipe is above the limit of 10 bytes (0 KiB)", true},
		{"missing", filepath.Join(dir, "nothing"), 10, 0, "no such file", false},
		{"a directory", dir, 10, 0, "reading " + dir, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path == "" {
				t.Skip("no named pipes here")
			}
			data, err := readCapped(tc.path, tc.limit)
			if tc.wantErr == "" {
				if err != nil || len(data) != tc.size {
					t.Fatalf("%d bytes, %v; want %d bytes", len(data), err, tc.size)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, errTooLarge) != tc.tooBig {
				t.Fatalf("error %v; want one saying %q (too large: %v)", err, tc.wantErr, tc.tooBig)
			}
		})
	}
}
