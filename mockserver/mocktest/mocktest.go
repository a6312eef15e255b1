// Package mocktest starts the mock of the chain data query API for a Go
// client's tests, in one line:
//
//	srv := mocktest.New(t, mocktest.Options{Seed: 7, Scale: 0.1})
//	resp, err := http.Get(srv.URL + "/transactions?first=5")
//
// The server listens on 127.0.0.1 and is closed when the test ends. It serves
// a generated world that can grow (srv.Advance) and misbehave on purpose
// (srv.SetFaults, or a request's X-Harness-Fault header), and answers the
// control API under /harness/ as harness serve does. The world of a seed and
// scale is generated once per test binary and shared by every server of it;
// each server has its own store, chain and faults, so tests may run in
// parallel.
package mocktest

import (
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/store"
)

// FaultHeader is the request header that asks the mock for a fault, such as
// "status=503; retry-after=2" (see package faults for the grammar).
const FaultHeader = faults.Header

// DefaultScale is the scale of a world when Options.Scale is 0: about 1,000
// transactions, quick to make.
const DefaultScale = 0.1

// Options choose a test server's world and settings.
type Options struct {
	// World names the world: world.EdgeWorld ("edges") for the edge world,
	// where every boundary the schemas allow sits (docs/edge-world.md);
	// "" or world.DefaultWorld for the world of Seed and Scale.
	World string
	// Seed and Scale choose the generated world (Scale 0: DefaultScale).
	// The edge world takes neither.
	Seed  int64
	Scale float64
	// Config sets the server: page sizes, Strict, fault rules and seed...
	// Its Chain and Control are set by mocktest.
	Config mockserver.Config
	// MaxBlocks bounds the blocks the chain may add (0: no bound).
	MaxBlocks int
	// Rows are records added to the world's listings, each listing's in
	// their place by its order, as POST /harness/rows adds them; Reset
	// keeps them. A row the schemas refuse fails the test that starts
	// the server.
	Rows []mockserver.Rows
}

// Server is a running mock.
type Server struct {
	// URL is the base URL, such as http://127.0.0.1:41234, of the API and
	// of the control API under /harness/.
	URL string

	mock *mockserver.Server
	http *httptest.Server
	tb   testing.TB // nil for a server made by Start
}

// New starts a server for the duration of the test; a failure to start it
// fails the test.
func New(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s, err := Start(opts)
	if err != nil {
		tb.Fatalf("mocktest: %v", err)
	}
	s.tb = tb
	tb.Cleanup(s.Close)
	return s
}

// Start starts a server outside a test (an example, TestMain); Close stops
// it. Its methods panic on misuse (a bad rule, blocks past the bound), as a
// test helper's misuse is a bug.
func Start(opts Options) (*Server, error) {
	key := worldKey{name: world.DefaultWorld, seed: opts.Seed, scale: opts.Scale}
	switch opts.World {
	case "", world.DefaultWorld:
		if key.scale == 0 {
			key.scale = DefaultScale
		}
	case world.EdgeWorld:
		if opts.Seed != 0 || opts.Scale != 0 {
			return nil, fmt.Errorf("the edge world is one fixed world: it takes no Seed or Scale")
		}
		key.name = world.EdgeWorld
	default:
		return nil, fmt.Errorf("unknown world %q (want %q or %q)", opts.World, world.DefaultWorld, world.EdgeWorld)
	}
	w, err := worldOf(key)
	if err != nil {
		return nil, err
	}
	st, err := store.New(w)
	if err != nil {
		return nil, fmt.Errorf("store of the world: %w", err)
	}
	chain, err := store.NewChain(st, w, opts.MaxBlocks)
	if err != nil {
		return nil, err
	}
	cfg := opts.Config
	cfg.Chain, cfg.Control, cfg.Edges = chain, true, w.Edges
	mock := mockserver.New(cfg, st)
	if err := mock.AddRowsAtStart(opts.Rows...); err != nil {
		st.Close()
		return nil, fmt.Errorf("options: %w", err)
	}
	// Served as harness serve serves it: its http.Server, each page in one
	// write.
	hs := httptest.NewUnstartedServer(mock)
	hs.Config = mock.HTTPServer()
	hs.Listener = mockserver.Listener(hs.Listener)
	hs.Start()
	return &Server{URL: hs.URL, mock: mock, http: hs}, nil
}

// Close stops the server; New's servers are closed when their test ends.
func (s *Server) Close() { s.http.Close() }

// fail reports a misuse: the test fails, or outside a test, a panic.
func (s *Server) fail(format string, a ...any) {
	if s.tb != nil {
		s.tb.Helper()
		s.tb.Fatalf("mocktest: "+format, a...)
	}
	panic(fmt.Sprintf("mocktest: "+format, a...))
}

// Advance adds n blocks to the chain: new transactions in each, a new
// epoch's games when one starts, snapshots and key rotations now and then.
func (s *Server) Advance(n int) {
	if s.tb != nil {
		s.tb.Helper()
	}
	if err := s.mock.Advance(n); err != nil {
		s.fail("advance %d blocks: %v", n, err)
	}
}

// AdvanceEpochs adds the blocks that start n more epochs and returns how
// many it added.
func (s *Server) AdvanceEpochs(n int) int {
	if s.tb != nil {
		s.tb.Helper()
	}
	blocks, err := s.mock.AdvanceEpochs(n)
	if err != nil {
		s.fail("advance %d epochs: %v", n, err)
	}
	return blocks
}

// SetFaults replaces the fault rules (none: no rule); the choice of the
// requests to fail starts again from the fault seed.
func (s *Server) SetFaults(rules ...faults.Rule) {
	if s.tb != nil {
		s.tb.Helper()
	}
	rs, err := faults.NewRuleSet(rules...)
	if err != nil {
		s.fail("fault rules: %v", err)
	}
	s.mock.SetFaults(rs)
}

// Reset takes the server back to its start: the world as generated with
// the rows of its Options, the fault rules of its Options, the fault counts
// at zero, the request journal empty.
func (s *Server) Reset() { s.mock.Reset() }

// AddRows adds rows to a listing for this test, as POST /harness/rows does
// (the request journal is emptied); Reset removes them. Rows the schemas
// refuse fail the test.
func (s *Server) AddRows(rows mockserver.Rows) {
	if s.tb != nil {
		s.tb.Helper()
	}
	if err := s.mock.AddRows(rows); err != nil {
		s.fail("add %s rows: %v", rows.Listing, err)
	}
}

// Status returns what GET /harness/status answers: counts, the latest block
// and epoch, the chain, the fault rules and the faults injected.
func (s *Server) Status() mockserver.Status { return s.mock.Status() }

// worlds holds the worlds generated in this test binary, by name, seed and scale:
// generating one takes far longer than a test should wait, and a world is
// only read once made (every server has its own store and chain).
var worlds = struct {
	sync.Mutex
	m map[worldKey]*sharedWorld
}{m: map[worldKey]*sharedWorld{}}

type worldKey struct {
	name  string
	seed  int64
	scale float64
}

type sharedWorld struct {
	once sync.Once
	w    *world.World
	err  error
}

// worldOf returns the world of a key, generating it on first use.
func worldOf(k worldKey) (*world.World, error) {
	worlds.Lock()
	sw, ok := worlds.m[k]
	if !ok {
		sw = &sharedWorld{}
		worlds.m[k] = sw
	}
	worlds.Unlock()
	sw.once.Do(func() {
		if k.name == world.EdgeWorld {
			sw.w, sw.err = world.GenerateEdges()
			return
		}
		sw.w, sw.err = world.Generate(world.Options{Seed: k.seed, Scale: k.scale})
		if sw.err != nil {
			sw.err = fmt.Errorf("generate the world of seed %d, scale %v: %w", k.seed, k.scale, sw.err)
		}
	})
	return sw.w, sw.err
}
