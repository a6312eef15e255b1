package mocktest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/faults"
)

func get(t *testing.T, url string, header http.Header) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// TestNewServesAndCloses checks a server answers the API and the control
// API, and is closed when its test ends.
func TestNewServesAndCloses(t *testing.T) {
	t.Parallel()
	var url string
	t.Run("server", func(t *testing.T) {
		srv := New(t, Options{Seed: 7, Scale: 0.1})
		url = srv.URL
		if code, body := get(t, url+"/transactions?first=2", nil); code != 200 || !strings.HasPrefix(string(body), `{"transactions":[`) {
			t.Errorf("status %d: %.200s", code, body)
		}
		var st mockserver.Status
		code, body := get(t, url+"/harness/status", nil)
		if err := json.Unmarshal(body, &st); code != 200 || err != nil || st.Seed != 7 || st.Scale != 0.1 || st.Chain == nil {
			t.Errorf("status %d, %v: %s", code, err, body)
		}
	})
	if _, err := http.Get(url + "/transactions"); err == nil {
		t.Error("the server still answers after its test ended")
	}
}

// TestServersShareTheWorldNotTheChain checks two servers of one seed and
// scale share the generated world, while each grows and fails on its own.
func TestServersShareTheWorldNotTheChain(t *testing.T) {
	t.Parallel()
	a, b := New(t, Options{Seed: 11, Scale: 0.05}), New(t, Options{Seed: 11, Scale: 0.05})
	wa, _ := worldOf(worldKey{world.DefaultWorld, 11, 0.05})
	wb, _ := worldOf(worldKey{world.DefaultWorld, 11, 0.05})
	if wa != wb {
		t.Error("two servers of one seed and scale generated the world twice")
	}
	if other, _ := worldOf(worldKey{world.DefaultWorld, 12, 0.05}); other == wa {
		t.Error("another seed shares the world")
	}
	a.Advance(40)
	a.SetFaults(faults.Rule{Fault: "status=500"})
	if sa, sb := a.Status(), b.Status(); sa.LatestBlock != sb.LatestBlock+40 || sb.Chain.BlocksAdded != 0 {
		t.Errorf("after advancing one server: blocks %d and %d", sa.LatestBlock, sb.LatestBlock)
	}
	if code, _ := get(t, b.URL+"/api/v2/games", nil); code != 200 {
		t.Errorf("the other server answered %d", code)
	}
	if code, _ := get(t, a.URL+"/api/v2/games", nil); code != 500 {
		t.Errorf("the faulted server answered %d", code)
	}
}

// TestAdvanceFaultsReset goes through the helpers: blocks and epochs added,
// rules set and applied, a header fault, and Reset.
func TestAdvanceFaultsReset(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{Seed: 3, MaxBlocks: 2000, Config: mockserver.Config{TxDefaultPageSize: 7}})
	start := srv.Status()
	if start.Scale != DefaultScale || start.Chain.MaxBlocks != 2000 {
		t.Errorf("status %+v: want scale %v, bound 2000", start, DefaultScale)
	}
	srv.Advance(10)
	epoch := srv.Status().LatestEpoch
	blocks := srv.AdvanceEpochs(1)
	st := srv.Status()
	if st.Chain.BlocksAdded != 10+blocks || st.LatestEpoch != epoch+1 || st.Counts["transactions"] <= start.Counts["transactions"] {
		t.Errorf("after 10 blocks and an epoch (%d blocks): %+v", blocks, st)
	}
	code, body := get(t, srv.URL+"/transactions", nil)
	var page struct{ Transactions []json.RawMessage }
	if err := json.Unmarshal(body, &page); code != 200 || err != nil || len(page.Transactions) != 7 {
		t.Errorf("Config.TxDefaultPageSize 7: status %d, %d transactions (%v)", code, len(page.Transactions), err)
	}
	srv.SetFaults(faults.Rule{Listing: "snapshots", Every: 2, Fault: "status=429"})
	var codes []int
	for range 4 {
		c, _ := get(t, srv.URL+"/api/v2/snapshots", nil)
		codes = append(codes, c)
	}
	if codes[0] != 200 || codes[1] != 429 || codes[2] != 200 || codes[3] != 429 {
		t.Errorf("snapshots under every: 2 answered %v", codes)
	}
	if c, _ := get(t, srv.URL+"/api/v2/games", http.Header{FaultHeader: {"status=504"}}); c != 504 {
		t.Errorf("a header fault answered %d", c)
	}
	srv.SetFaults()
	if c, _ := get(t, srv.URL+"/api/v2/snapshots", nil); c != 200 {
		t.Errorf("after SetFaults(): %d", c)
	}
	srv.Reset()
	if st := srv.Status(); st.LatestBlock != start.LatestBlock || st.Chain.BlocksAdded != 0 || st.Faults.Injected["status"] != 0 {
		t.Errorf("after Reset: %+v", st)
	}
}

// fakeTB records a helper's failure instead of failing the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, a ...any) {
	f.failed = format
	panic(f)
}

// TestMisuseFails checks a misuse fails the test (or panics outside one):
// passing the bound, a bad rule, a world that cannot be made.
func TestMisuseFails(t *testing.T) {
	t.Parallel()
	srv := New(t, Options{Seed: 3, MaxBlocks: 5})
	misuses := []struct {
		name string
		do   func(s *Server)
	}{
		{"blocks past the bound", func(s *Server) { s.Advance(6) }},
		{"epochs past the bound", func(s *Server) { s.AdvanceEpochs(3) }},
		{"a bad rule", func(s *Server) { s.SetFaults(faults.Rule{Fault: "status=404"}) }},
	}
	for _, m := range misuses {
		for _, inTest := range []bool{true, false} {
			fake := &fakeTB{TB: t}
			s := *srv
			s.tb = nil
			if inTest {
				s.tb = fake
			}
			func() {
				defer func() {
					v := recover()
					if v == nil {
						t.Errorf("%s (in a test: %v): no failure", m.name, inTest)
					}
					if inTest && fake.failed == "" {
						t.Errorf("%s: panicked instead of failing the test: %v", m.name, v)
					}
				}()
				m.do(&s)
			}()
		}
	}
	if _, err := Start(Options{Scale: 5000}); err == nil {
		t.Error("Start with scale 5000: no error")
	}
	fake := &fakeTB{TB: t}
	func() {
		defer func() { recover() }()
		New(fake, Options{Scale: -1})
	}()
	if fake.failed == "" {
		t.Error("New with a bad scale did not fail the test")
	}
}

// TestEdgeWorldOption serves the edge world: a transaction in a block above
// 2^53, as the world has, and refuses a seed or scale with it and an
// unknown world, naming the worlds.
func TestEdgeWorldOption(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{World: "edges", Seed: 3}, {World: "edges", Scale: 0.5}, {World: "moon"}} {
		if _, err := Start(opts); err == nil || !strings.Contains(err.Error(), "world") {
			t.Errorf("Start(%+v): %v, want an error about the world", opts, err)
		}
	}
	srv := New(t, Options{World: world.EdgeWorld})
	code, body := get(t, srv.URL+"/transactions?last=1&before=9007199254740993.1", nil)
	if code != http.StatusOK || !strings.Contains(string(body), `"cursor":"9007199254740993.0"`) {
		t.Errorf("the edge world's transaction in block 2^53+1: %d %.200s", code, body)
	}
	if st := srv.Status(); st.FirstEpoch >= 1<<53 || st.LatestEpoch <= 1<<53 {
		t.Errorf("epochs %d to %d: the edge world's cross 2^53", st.FirstEpoch, st.LatestEpoch)
	}
}
