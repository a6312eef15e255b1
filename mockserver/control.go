package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/internal/quote"
	"github.com/chaindata/harness/mockserver/faults"
)

// The control API, under /harness/ on the API's own port: a test (or a
// person with curl) reads the mock's state, grows its chain, replaces its
// fault rules and takes it back to its start. Faults never apply to it.
//
//	GET  /harness/status
//	POST /harness/advance?blocks=N   (or epochs=N)
//	POST /harness/faults             (body: a rule file, YAML or JSON)
//	POST /harness/reset
//	POST /harness/rows               (body: rows for a listing: rows.go)
//	GET  /harness/requests           (?listing=, ?since=: journalapi.go)
//	DELETE /harness/requests
//	GET  /harness/walks              (?listing=: journalapi.go)
//	GET  /harness/verify             (the journal judged: verify.go)
//	GET  /harness/coverage           (what the client was served: coverage.go)
//
// Every answer is the status, as JSON; bad input is a 400 with the API's
// error body. Writes from other web origins are refused, and a token may be
// required of every request: see guardControl (controlguard.go).

// ControlPrefix is the path the control API lives under.
const ControlPrefix = "/harness/"

// maxAdvanceBlocks is the most blocks one advance adds.
const maxAdvanceBlocks = 1_000_000

// MaxFaultsBytes is the largest rule file taken, by POST /harness/faults as
// by harness serve --faults.
const MaxFaultsBytes = 1 << 20

// ErrNoChain is returned when asked to grow a world that has no live chain
// (fixtures, or a server configured without one).
var ErrNoChain = errors.New("this server's world does not grow: it has no live chain (fixtures cannot grow)")

// Status is the mock's state, as GET /harness/status answers it.
type Status struct {
	// Seed and Scale are the generated world's (0 for fixtures that do not
	// say).
	Seed  int64   `json:"seed"`
	Scale float64 `json:"scale"`
	// Counts is the number of rows of each listing, by listing name, the
	// rows added included.
	Counts map[string]int `json:"counts"`
	// AddedRows is the number of rows added to each listing (POST
	// /harness/rows) since start or the last reset.
	AddedRows       map[string]int `json:"addedRows"`
	LatestBlock     uint64         `json:"latestBlock"`
	LatestBlockTime time.Time      `json:"latestBlockTime"`
	FirstEpoch      uint64         `json:"firstEpoch"`
	LatestEpoch     uint64         `json:"latestEpoch"`
	// Chain is the live chain's state; nil when the world cannot grow.
	Chain  *ChainStatus `json:"chain"`
	Faults FaultStatus  `json:"faults"`
	// PageCache is what the page cache holds and has served.
	PageCache PageCacheStatus `json:"pageCache"`
}

// PageCacheStatus is the page cache's state (see Config.PageCacheBytes).
type PageCacheStatus struct {
	// LimitBytes is the most bytes it keeps (0: it keeps none); Bytes and
	// Answers what it keeps now.
	LimitBytes int `json:"limitBytes"`
	Bytes      int `json:"bytes"`
	Answers    int `json:"answers"`
	// Hits counts the answers served from it since start.
	Hits uint64 `json:"hits"`
}

// ChainStatus is a live chain's state.
type ChainStatus struct {
	// BlocksAdded counts the blocks added since start or the last reset.
	BlocksAdded int `json:"blocksAdded"`
	// MaxBlocks bounds BlocksAdded (0: no bound).
	MaxBlocks int `json:"maxBlocks"`
	// Clock is "wall" while blocks arrive every BlockInterval, "manual"
	// when they come only from advance.
	Clock         string `json:"clock"`
	BlockInterval string `json:"blockInterval,omitempty"`
}

// FaultStatus is the fault rules in force and the faults applied.
type FaultStatus struct {
	Rules []faults.Rule `json:"rules"`
	// Injected counts the faults applied since start or the last reset, by
	// kind ("latency" counts the requests delayed).
	Injected map[string]int64 `json:"injected"`
}

// Status returns the mock's state.
func (s *Server) Status() Status {
	st := s.store.State()
	out := Status{
		Seed: st.Seed, Scale: st.Scale, Counts: st.Counts, AddedRows: s.store.AddedCounts(),
		LatestBlock: st.LatestBlock, LatestBlockTime: st.LatestBlockTime.UTC(),
		FirstEpoch: st.FirstEpoch, LatestEpoch: st.LatestEpoch,
	}
	if c := s.chain; c != nil {
		cs := &ChainStatus{BlocksAdded: c.Added(), MaxBlocks: c.MaxBlocks(), Clock: "manual"}
		if d := c.Interval(); d > 0 {
			cs.Clock, cs.BlockInterval = "wall", d.String()
		}
		out.Chain = cs
	}
	out.Faults.Rules = s.faults.Rules().Rules()
	if out.Faults.Rules == nil {
		out.Faults.Rules = []faults.Rule{}
	}
	out.Faults.Injected = s.faults.Counts()
	out.PageCache = s.pages.status()
	return out
}

// Advance adds n blocks to the live chain.
func (s *Server) Advance(n int) error {
	if s.chain == nil {
		return ErrNoChain
	}
	return s.chain.Advance(n)
}

// AdvanceEpochs adds the blocks that start n more epochs and returns how
// many it added.
func (s *Server) AdvanceEpochs(n int) (int, error) {
	if s.chain == nil {
		return 0, ErrNoChain
	}
	return s.chain.AdvanceEpochs(n)
}

// SetFaults replaces the fault rules (nil: none), starting the stream that
// chooses the requests to fail again from the fault seed.
func (s *Server) SetFaults(rs *faults.RuleSet) { s.faults.SetRules(rs) }

// Reset takes the mock back to its start: the world as built (the live
// chain's blocks and the rows added dropped), the fault rules it started
// with, the fault streams started again and their counts at zero, the
// request journal empty.
func (s *Server) Reset() {
	if s.chain != nil {
		s.chain.Reset()
	} else {
		s.store.Reset()
	}
	s.faults.Reset()
	s.journal.Clear()
}

// withControl serves the control API under /harness/, behind its guard, and
// api elsewhere.
func (s *Server) withControl(api http.Handler) http.Handler {
	mux := http.NewServeMux()
	routes := []struct {
		method, path string
		handler      http.HandlerFunc
	}{
		{http.MethodGet, "/harness/status", s.handleStatus},
		{http.MethodPost, "/harness/advance", s.handleAdvance},
		{http.MethodPost, "/harness/faults", s.handleFaults},
		{http.MethodPost, "/harness/reset", s.handleReset},
		{http.MethodPost, "/harness/rows", s.handleRows},
		{http.MethodGet, "/harness/requests", s.handleRequests},
		{http.MethodDelete, "/harness/requests", s.handleClearRequests},
		{http.MethodGet, "/harness/walks", s.handleWalks},
		{http.MethodGet, "/harness/verify", s.handleVerify},
		{http.MethodGet, "/harness/coverage", s.handleCoverage},
	}
	allowed := map[string][]string{}
	for _, rt := range routes {
		mux.HandleFunc(rt.method+" "+rt.path, rt.handler)
		allowed[rt.path] = append(allowed[rt.path], rt.method)
	}
	// Another method on a control path: 405 with Allow (the API's own
	// listings keep the gateway's 501).
	for p, methods := range allowed {
		allow := strings.Join(methods, ", ")
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, controlMethodNotAllowed(r.Method, allow))
		})
	}
	notFound := func(w http.ResponseWriter, _ *http.Request) { writeError(w, errNotFound) }
	mux.HandleFunc("/", notFound)
	control := guardControl(exactPaths(mux, nil, notFound), s.cfg.ControlToken, newHostGuard(s.cfg.AllowHosts))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isControlPath(r.URL.Path) {
			control.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// isControlPath reports whether a path is the control API's.
func isControlPath(p string) bool {
	return p == "/harness" || strings.HasPrefix(p, ControlPrefix)
}

func (s *Server) writeStatus(w http.ResponseWriter) {
	body, err := json.Marshal(s.Status())
	if err != nil {
		writeError(w, internalError("status: "+err.Error()))
		return
	}
	body = append(body, '\n')
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	if r.URL.RawQuery != "" {
		writeError(w, invalidArgument("invalid status request", "status takes no parameters, got "+quote.Value(r.URL.RawQuery)))
		return
	}
	s.writeStatus(w)
}

func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
	if r.URL.RawQuery != "" {
		writeError(w, invalidArgument("invalid reset request", "reset takes no parameters, got "+quote.Value(r.URL.RawQuery)))
		return
	}
	s.Reset()
	s.writeStatus(w)
}

// handleAdvance adds blocks=N blocks, or the blocks that start epochs=N
// epochs.
func (s *Server) handleAdvance(w http.ResponseWriter, r *http.Request) {
	n, byEpochs, err := advanceRequest(r)
	if err != nil {
		writeError(w, err)
		return
	}
	aerr := ErrNoChain
	if s.chain != nil && byEpochs {
		_, aerr = s.chain.AdvanceEpochsAtMost(n, maxAdvanceBlocks)
	} else if s.chain != nil {
		aerr = s.chain.Advance(n)
	}
	if aerr != nil {
		writeError(w, invalidArgument("cannot advance", aerr.Error()))
		return
	}
	s.writeStatus(w)
}

// advanceRequest reads the query of an advance: exactly one of blocks and
// epochs, a whole number from 1.
func advanceRequest(r *http.Request) (n int, byEpochs bool, e *apiError) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return 0, false, invalidArgument("invalid advance request", "parsing query: "+err.Error())
	}
	for k := range q {
		if k != "blocks" && k != "epochs" {
			return 0, false, invalidArgument("invalid advance request", fmt.Sprintf("unknown parameter %s: give blocks=N or epochs=N", quote.Value(k)))
		}
	}
	blocks, hasBlocks := q["blocks"]
	epochs, hasEpochs := q["epochs"]
	if hasBlocks == hasEpochs || len(blocks)+len(epochs) != 1 {
		return 0, false, invalidArgument("invalid advance request", "give one of blocks=N or epochs=N, once")
	}
	name, value, limit := "blocks", blocks, maxAdvanceBlocks
	if hasEpochs {
		name, value = "epochs", epochs
	}
	n, err = strconv.Atoi(value[0])
	if err != nil || n < 1 || n > limit {
		return 0, false, invalidArgument("invalid advance request", fmt.Sprintf("%s %s: want a whole number from 1 to %d", name, quote.Value(value[0]), limit))
	}
	return n, hasEpochs, nil
}

// handleFaults replaces the fault rules with the body's.
func (s *Server) handleFaults(w http.ResponseWriter, r *http.Request) {
	if r.URL.RawQuery != "" {
		writeError(w, invalidArgument("invalid fault rules", "faults takes its rules in the body, not parameters: got "+quote.Value(r.URL.RawQuery)))
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxFaultsBytes))
	if err != nil {
		writeError(w, invalidArgument("invalid fault rules", fmt.Sprintf("reading the body: %v (at most %d bytes)", err, MaxFaultsBytes)))
		return
	}
	rs, err := faults.ParseRules(data)
	if err != nil {
		writeError(w, invalidArgument("invalid fault rules", quote.Message(err.Error())))
		return
	}
	s.SetFaults(rs)
	s.writeStatus(w)
}
