package mockserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/store"
)

// control sends one request to the control API and decodes the status it
// answers with (failing the test on any other answer).
func control(t *testing.T, s *testServer, method, path, query, body string) Status {
	t.Helper()
	r := controlRaw(t, s, method, path, query, body)
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d: %s", r, r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", r, ct)
	}
	var st Status
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		t.Fatalf("%s: %v\n%s", r, err, r.body)
	}
	return st
}

// controlRaw sends one request with a body (labelled YAML, as a client of
// the control API labels it) and returns the answer unchecked.
func controlRaw(t *testing.T, s *testServer, method, path, query, body string) *response {
	t.Helper()
	hdr := http.Header{}
	if body != "" {
		hdr.Set("Content-Type", "application/yaml")
	}
	return controlHeader(t, s, method, path, query, body, hdr)
}

// controlHeader sends one request with a body and exactly the headers hdr
// (a Host header among them sets the request's Host) and returns the answer
// unchecked.
func controlHeader(t *testing.T, s *testServer, method, path, query, body string, hdr http.Header) *response {
	t.Helper()
	u := s.url + path
	if query != "" {
		u += "?" + query
	}
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	curl := fmt.Sprintf("curl -X %s '%s'", method, u)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v[0]
		} else {
			req.Header[k] = v
		}
		for _, x := range v {
			curl += fmt.Sprintf(" -H '%s: %s'", k, x)
		}
	}
	if body != "" {
		curl += fmt.Sprintf(" --data-binary %q", clip(body, 80))
	}
	res, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &response{req: curl, status: res.StatusCode, header: res.Header, body: b}
}

// TestControlAPI goes through the control API's operations in turn, checking
// each answer's status and what the API then serves.
func TestControlAPI(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s, _ := liveServer(t, Config{Control: true, FaultSeed: 3, Latency: 0}, w, 5000)
	counts := func(w *world.World) map[string]int {
		return map[string]int{"games": len(w.Games), "snapshots": len(w.Snapshots), "keyrotations": len(w.KeyRotations),
			"networkparameters": len(w.NetworkParameters), "transactions": len(w.Transactions)}
	}

	st := control(t, s, http.MethodGet, "/harness/status", "", "")
	zero := map[string]int64{"latency": 0, "status": 0, "reset": 0, "empty": 0, "truncate": 0, "slow-body": 0, "garbage": 0}
	if st.Seed != w.Seed || st.Scale != w.Scale || st.LatestBlock != w.LatestBlock || !st.LatestBlockTime.Equal(w.LatestBlockTime) ||
		st.FirstEpoch != w.FirstEpoch || st.LatestEpoch != w.LatestEpoch || fmt.Sprint(st.Counts) != fmt.Sprint(counts(w)) {
		t.Errorf("status at start %+v, want the world's: seed %d, scale %v, block %d, epochs %d-%d, counts %v",
			st, w.Seed, w.Scale, w.LatestBlock, w.FirstEpoch, w.LatestEpoch, counts(w))
	}
	if st.Chain == nil || *st.Chain != (ChainStatus{MaxBlocks: 5000, Clock: "manual"}) {
		t.Errorf("chain at start %+v", st.Chain)
	}
	if len(st.Faults.Rules) != 0 || fmt.Sprint(st.Faults.Injected) != fmt.Sprint(zero) {
		t.Errorf("faults at start %+v", st.Faults)
	}

	st = control(t, s, http.MethodPost, "/harness/advance", "blocks=300", "")
	after, _ := grown(t, w, 300)
	if st.Chain.BlocksAdded != 300 || st.LatestBlock != w.LatestBlock+300 || fmt.Sprint(st.Counts) != fmt.Sprint(counts(after)) || st.LatestEpoch != after.LatestEpoch {
		t.Errorf("after 300 blocks: %+v, want counts %v, epoch %d", st, counts(after), after.LatestEpoch)
	}
	if h := s.get(t, "/api/v2/snapshots", "").header.Get("X-Block-Height"); h != fmt.Sprint(w.LatestBlock+300) {
		t.Errorf("X-Block-Height %s after 300 blocks, want %d", h, w.LatestBlock+300)
	}

	epoch := st.LatestEpoch
	st = control(t, s, http.MethodPost, "/harness/advance", "epochs=2", "")
	if st.LatestEpoch != epoch+2 {
		t.Errorf("after epochs=2: epoch %d, want %d", st.LatestEpoch, epoch+2)
	}

	st = control(t, s, http.MethodPost, "/harness/faults", "", "rules:\n  - listing: snapshots\n    every: 2\n    fault: status=503; retry-after=2\n")
	if len(st.Faults.Rules) != 1 || st.Faults.Rules[0].Listing != "snapshots" || st.Faults.Rules[0].Every != 2 {
		t.Errorf("rules after POST /harness/faults: %+v", st.Faults.Rules)
	}
	statuses := []int{}
	for range 4 {
		r, err := s.fetch(http.MethodGet, "/api/v2/snapshots", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		statuses = append(statuses, r.status)
	}
	if fmt.Sprint(statuses) != "[200 503 200 503]" {
		t.Errorf("snapshots answered %v under every: 2", statuses)
	}
	if r := s.get(t, "/api/v2/games", "pagination.first=1"); r.status != 200 {
		t.Errorf("games answered %d under a snapshots rule", r.status)
	}
	st = control(t, s, http.MethodGet, "/harness/status", "", "")
	if st.Faults.Injected["status"] != 2 {
		t.Errorf("injected %v, want 2 statuses", st.Faults.Injected)
	}

	st = control(t, s, http.MethodPost, "/harness/faults", "", `{"rules": [{"path": "/transactions", "fault": "garbage"}]}`)
	if len(st.Faults.Rules) != 1 || st.Faults.Rules[0].Path != "/transactions" {
		t.Errorf("rules after a JSON body: %+v", st.Faults.Rules)
	}
	if r, _ := s.fetch(http.MethodGet, "/transactions", "", nil); string(r.body) != faults.GarbageBody {
		t.Errorf("/transactions answered %.100s under a garbage rule", r.body)
	}
	if st.Faults.Injected["status"] != 2 {
		t.Errorf("replacing the rules reset the counts: %v", st.Faults.Injected)
	}

	st = control(t, s, http.MethodPost, "/harness/reset", "", "")
	if st.Chain.BlocksAdded != 0 || st.LatestBlock != w.LatestBlock || st.LatestEpoch != w.LatestEpoch || fmt.Sprint(st.Counts) != fmt.Sprint(counts(w)) ||
		len(st.Faults.Rules) != 0 || fmt.Sprint(st.Faults.Injected) != fmt.Sprint(zero) {
		t.Errorf("after reset %+v", st)
	}
	if r := s.get(t, "/transactions", ""); r.status != 200 {
		t.Errorf("after reset /transactions answered %d", r.status)
	}
}

// TestControlAPIRefuses checks every bad request to the control API is
// answered with the error body that says what is wrong, and changes nothing.
func TestControlAPIRefuses(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	live, _ := liveServer(t, Config{Control: true}, w, 100)
	static := serve(t, Config{Control: true}, w)
	tests := []struct {
		name                string
		s                   *testServer
		method, path, query string
		body                string
		status              int
		text                string
	}{
		{"advance with nothing", live, "POST", "/harness/advance", "", "", 400, "give one of blocks=N or epochs=N"},
		{"advance both", live, "POST", "/harness/advance", "blocks=1&epochs=1", "", 400, "give one of blocks=N or epochs=N"},
		{"advance twice", live, "POST", "/harness/advance", "blocks=1&blocks=2", "", 400, "once"},
		{"advance 0", live, "POST", "/harness/advance", "blocks=0", "", 400, `blocks "0": want a whole number from 1 to 1000000`},
		{"advance negative", live, "POST", "/harness/advance", "blocks=-4", "", 400, "want a whole number"},
		{"advance not a number", live, "POST", "/harness/advance", "blocks=ten", "", 400, `blocks "ten"`},
		{"advance too many", live, "POST", "/harness/advance", "blocks=1000001", "", 400, "from 1 to 1000000"},
		{"advance 0 epochs", live, "POST", "/harness/advance", "epochs=0", "", 400, `epochs "0"`},
		{"advance by an unknown unit", live, "POST", "/harness/advance", "seconds=5", "", 400, `unknown parameter "seconds"`},
		{"advance with a bad query", live, "POST", "/harness/advance", "blocks=%zz", "", 400, "parsing query"},
		{"advance past the bound", live, "POST", "/harness/advance", "blocks=101", "", 400, "bound would be passed: 0 of 100 added"},
		{"advance epochs past the bound", live, "POST", "/harness/advance", "epochs=2", "", 400, "bound would be passed"},
		{"advance epochs of too many blocks", live, "POST", "/harness/advance", "epochs=100000", "", 400, "more than 1000000 at once"},
		{"advance fixtures", static, "POST", "/harness/advance", "blocks=1", "", 400, "does not grow"},
		{"faults not YAML", live, "POST", "/harness/faults", "", "rules: [\n", 400, "fault rules (YAML)"},
		{"faults with an unknown listing", live, "POST", "/harness/faults", "", "rules:\n  - listing: blocks\n    fault: reset\n", 400, `listing "blocks"`},
		{"faults on the control API", live, "POST", "/harness/faults", "", `{"rules": [{"path": "/harness/status", "fault": "reset"}]}`, 400, "faults never hit the control API"},
		{"faults empty", live, "POST", "/harness/faults", "", "", 400, "empty"},
		{"faults in the query", live, "POST", "/harness/faults", "fault=reset", "rules: []", 400, "not parameters"},
		{"faults too big", live, "POST", "/harness/faults", "", "rules: []\n#" + strings.Repeat("x", 1<<20), 400, "at most 1048576 bytes"},
		{"status with parameters", live, "GET", "/harness/status", "verbose=1", "", 400, "status takes no parameters"},
		{"reset with parameters", live, "POST", "/harness/reset", "hard=1", "", 400, "reset takes no parameters"},
		{"advance by GET", live, "GET", "/harness/advance", "blocks=1", "", 405, `"GET" is not a method of this path; it takes POST`},
		{"status by POST", live, "POST", "/harness/status", "", "", 405, "it takes GET"},
		{"reset by PUT", live, "PUT", "/harness/reset", "", "", 405, "Method Not Allowed"},
		{"requests by POST", live, "POST", "/harness/requests", "", "", 405, "it takes GET, DELETE"},
		{"an unknown operation", live, "GET", "/harness/metrics", "", "", 404, "Not Found"},
		{"the prefix alone", live, "GET", "/harness", "", "", 404, "Not Found"},
		{"a path not clean", live, "GET", "/harness/x/../status", "", "", 404, "Not Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.s.statusRaw(t)
			r := controlRaw(t, tc.s, tc.method, tc.path, tc.query, tc.body)
			if r.status != tc.status {
				t.Fatalf("%s: status %d, want %d: %s", r, r.status, tc.status, r.body)
			}
			if err := validateCached("Error", r.body); err != nil {
				t.Fatalf("%s: not the error body: %v: %s", r, err, r.body)
			}
			e := r.apiError(t)
			said := e.Message
			for _, d := range e.Details {
				said += " " + d.Message + " " + d.Inner
			}
			if !strings.Contains(said, tc.text) {
				t.Errorf("%s: body %s does not say %q", r, r.body, tc.text)
			}
			if allow := r.header.Get("Allow"); (r.status == http.StatusMethodNotAllowed) != (allow != "") {
				t.Errorf("%s: status %d with Allow %q; a 405, and only a 405, says which methods the path takes", r, r.status, allow)
			}
			if after := tc.s.statusRaw(t); after != before {
				t.Errorf("a refused request changed the status:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// statusRaw returns the status body as text.
func (s *testServer) statusRaw(t *testing.T) string {
	t.Helper()
	r, err := s.fetch(http.MethodGet, "/harness/status", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(r.body)
}

// TestFaultsSpareControlAndPreflights checks no fault, by rule or by header,
// ever hits the control API or a CORS preflight; and that without Control
// the control paths are the API's unknown paths.
func TestFaultsSpareControlAndPreflights(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	rules, err := faults.NewRuleSet(faults.Rule{Fault: "status=500"})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := liveServer(t, Config{Control: true, Faults: rules, FailRate: 1, Latency: 1}, w, 0)
	preflight := http.Header{"Origin": {"https://example.org"}, "Access-Control-Request-Method": {"GET"}}
	for _, h := range []string{"", "reset", "status=503", "garbage"} {
		hdr := http.Header{}
		if h != "" {
			hdr.Set(faults.Header, h)
		}
		for _, c := range []struct{ method, path string }{{"GET", "/harness/status"}, {"POST", "/harness/advance?blocks=1"}} {
			path, query, _ := cutQuery(c.path)
			r, err := s.fetch(c.method, path, query, hdr)
			if err != nil || r.status != 200 {
				t.Errorf("%s %s with fault %q: %v, status %v", c.method, c.path, h, err, r)
			}
		}
		for k, v := range preflight {
			hdr[k] = v
		}
		if r := s.do(t, http.MethodOptions, "/api/v2/games", "", hdr); r.status != http.StatusNoContent {
			t.Errorf("preflight with fault %q: status %d, want 204", h, r.status)
		}
	}
	if r := s.get(t, "/api/v2/games", ""); r.status != 500 {
		t.Errorf("an API request under a status=500 rule answered %d", r.status)
	}
	st := control(t, s, http.MethodGet, "/harness/status", "", "")
	var names []string
	for _, r := range st.Faults.Rules {
		names = append(names, r.Name+":"+r.Fault)
	}
	if want := []string{":status=500", "--latency:latency=1ns", "--fail-rate:status=500"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("rules %v, want the configured one and the shorthands %v", names, want)
	}
	if st.Faults.Injected["status"] != 1 || st.Faults.Injected["latency"] != 1 || st.Faults.Injected["reset"] != 0 {
		t.Errorf("injected %v: want only the API request counted", st.Faults.Injected)
	}

	off := serve(t, Config{}, w)
	if r := off.get(t, "/harness/status", ""); r.status != 404 {
		t.Errorf("without Control, /harness/status answered %d, want 404", r.status)
	}
}

// TestFaultHeaderOnListings sends a fault header to every listing of the
// full mock: the fault replaces the answer, and the rest go on.
func TestFaultHeaderOnListings(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s := serve(t, Config{}, w)
	for _, p := range listingPaths {
		for _, tc := range []struct {
			fault  string
			status int
			code   int32
		}{{"status=503", 503, 14}, {"status=429", 429, 8}, {"status=504", 504, 4}, {"status=502", 502, 14}, {"status=500", 500, 13}, {"bogus", 400, 3}} {
			hdr := http.Header{faults.Header: {tc.fault}}
			r, err := s.fetch(http.MethodGet, p, "", hdr)
			if err != nil {
				t.Fatal(err)
			}
			if r.status != tc.status {
				t.Errorf("%s with %s: status %d, want %d", p, tc.fault, r.status, tc.status)
				continue
			}
			if err := validateCached("Error", r.body); err != nil {
				t.Errorf("%s with %s: %v", p, tc.fault, err)
			}
			if e := r.apiError(t); e.Code != tc.code {
				t.Errorf("%s with %s: code %d, want %d", p, tc.fault, e.Code, tc.code)
			}
		}
		r := s.do(t, http.MethodGet, p, "", http.Header{faults.Header: {"latency=1ms"}})
		if r.status != 200 {
			t.Errorf("%s with a latency: status %d", p, r.status)
		}
	}
}

// TestShorthandLatencyIsCapped checks a Latency beyond the faults' maximum
// is served as the maximum rather than refused.
func TestShorthandLatencyIsCapped(t *testing.T) {
	t.Parallel()
	st, err := store.New(emptyWorld())
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Config{Latency: 3 * faults.MaxLatency, FailRate: 2}, st)
	var got []string
	for _, r := range srv.Status().Faults.Rules {
		got = append(got, fmt.Sprintf("%s %v %s", r.Name, r.Probability, r.Fault))
	}
	if want := []string{"--latency 0 latency=1h0m0s", "--fail-rate 0 status=500"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rules %v, want %v", got, want)
	}
	if srv.Status().Chain != nil {
		t.Error("a server without a chain reports one")
	}
	if err := srv.Advance(1); err != ErrNoChain {
		t.Errorf("Advance without a chain: %v", err)
	}
	if _, err := srv.AdvanceEpochs(1); err != ErrNoChain {
		t.Errorf("AdvanceEpochs without a chain: %v", err)
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// TestRequestTargetsThatAreNoPath: a request target net/http's mux cannot
// route ("*", an authority) gets the API's error body, a 400, on the API
// and with the control API on; a target in absolute form is served.
func TestRequestTargetsThatAreNoPath(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	for _, control := range []bool{false, true} {
		s := serve(t, Config{Control: control}, w)
		addr := strings.TrimPrefix(s.url, "http://")
		tests := []struct {
			line   string
			status int
			say    string
		}{
			{"GET * HTTP/1.1", 400, `the request target must be a path starting with /, got "*"`},
			{"POST * HTTP/1.1", 400, `got "*"`},
			{"CONNECT " + addr + " HTTP/1.1", 400, `got "` + addr + `"`},
			{"GET http://" + addr + "/api/v2/network/parameters?pagination.first=1 HTTP/1.1", 200, ""},
		}
		for _, tc := range tests {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(conn, "%s\r\nHost: %s\r\nConnection: close\r\n\r\n", tc.line, addr)
			resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: strings.Fields(tc.line)[0]})
			if err != nil {
				conn.Close()
				t.Fatalf("%s: %v", tc.line, err)
			}
			body, _ := io.ReadAll(resp.Body)
			conn.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("%s (control %v): HTTP %d, want %d: %s", tc.line, control, resp.StatusCode, tc.status, body)
				continue
			}
			if tc.status == 200 {
				continue
			}
			if err := validateCached("Error", body); err != nil || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s: not the error body (%v, %q): %s", tc.line, err, resp.Header.Get("Content-Type"), body)
			}
			var e struct {
				Code    int32 `json:"code"`
				Details []struct {
					Inner string `json:"inner"`
				} `json:"details"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Code != 3 || len(e.Details) != 1 || !strings.Contains(e.Details[0].Inner, tc.say) {
				t.Errorf("%s: body %s does not say %q with code 3", tc.line, body, tc.say)
			}
		}
	}
}

// TestControlAllow: a 405 of the control API names in Allow exactly the
// methods its path takes.
func TestControlAllow(t *testing.T) {
	t.Parallel()
	s, _ := liveServer(t, Config{Control: true}, genWorld(t), 0)
	for path, want := range map[string]string{
		"/harness/status": "GET", "/harness/advance": "POST", "/harness/faults": "POST", "/harness/reset": "POST",
		"/harness/requests": "GET, DELETE", "/harness/walks": "GET",
	} {
		r := controlRaw(t, s, "PATCH", path, "", "")
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != want {
			t.Errorf("PATCH %s: HTTP %d, Allow %q; want 405 and %q", path, r.status, r.header.Get("Allow"), want)
		}
	}
}
