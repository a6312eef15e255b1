package mocktest

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chaindata/harness/mockserver"
)

// Verification as GET /harness/verify answers it, from Go: the same
// judgement (mockserver's Server.Verify), chosen by options.
//
//	srv.AssertVerified(t)                                  // every walk complete and clean, no warning
//	srv.AssertVerified(t, mocktest.Listing("games"), mocktest.Partial())
//	srv.AssertVerified(t, mocktest.Listing("transactions"),
//		mocktest.Match("cmdTypes", "Submit Order"), mocktest.Count(3))

// VerifyOption chooses what a verification judges (a parameter of GET
// /harness/verify).
type VerifyOption func(*mockserver.VerifyQuery)

// Listing keeps one listing's walks and requests ("games", "snapshots",
// "keyrotations", "networkparameters", "transactions"): ?listing=.
func Listing(name string) VerifyOption {
	return func(q *mockserver.VerifyQuery) { q.Listing = name }
}

// Match counts only the requests whose query carries param with value
// among its values, as the client sent it (no value: param only needs to
// be there): ?match=param=value. Several Match options must all hold.
func Match(param string, value ...string) VerifyOption {
	return func(q *mockserver.VerifyQuery) {
		if q.Match == nil {
			q.Match = url.Values{}
		}
		q.Match[param] = append(q.Match[param], value...)
		if q.Match[param] == nil {
			q.Match[param] = []string{}
		}
	}
}

// Status counts only the requests answered with an HTTP status: ?status=.
func Status(code int) VerifyOption {
	return func(q *mockserver.VerifyQuery) { q.Status = code }
}

// Count judges the number of requests selected, exactly n: ?count=n.
func Count(n int) VerifyOption {
	return func(q *mockserver.VerifyQuery) { q.Requests = &mockserver.CountRange{Min: n, Max: n} }
}

// AtLeast judges the number of requests selected, at least n (with AtMost,
// in a range): ?atLeast=n.
func AtLeast(n int) VerifyOption {
	return func(q *mockserver.VerifyQuery) {
		if q.Requests == nil {
			q.Requests = &mockserver.CountRange{Max: -1}
		}
		q.Requests.Min = n
	}
}

// AtMost judges the number of requests selected, at most n: ?atMost=n.
func AtMost(n int) VerifyOption {
	return func(q *mockserver.VerifyQuery) {
		if q.Requests == nil {
			q.Requests = &mockserver.CountRange{}
		}
		q.Requests.Max = n
	}
}

// Partial accepts walks that stop before the end; they must still be
// clean: ?partial=true.
func Partial() VerifyOption {
	return func(q *mockserver.VerifyQuery) { q.Partial = true }
}

// Verify judges the request journal as GET /harness/verify does with the
// options' parameters: without a count, every walk complete and clean and
// no request answered with a warning; with Count, AtLeast or AtMost, the
// number of requests Listing, Match and Status select. Options no journal
// can be judged by (a negative count, Match without a count) fail the
// test, or panic outside one.
func (s *Server) Verify(opts ...VerifyOption) mockserver.Verdict {
	if s.tb != nil {
		s.tb.Helper()
	}
	var q mockserver.VerifyQuery
	for _, o := range opts {
		o(&q)
	}
	if err := q.Check(); err != nil {
		s.fail("verify: %v", err)
	}
	return s.mock.Verify(q)
}

// AssertVerified fails the test, with the verdict's messages, unless
// Verify(opts...) passes. It reports whether it passed.
func (s *Server) AssertVerified(tb testing.TB, opts ...VerifyOption) bool {
	tb.Helper()
	v := s.Verify(opts...)
	if !v.Pass {
		tb.Errorf("mocktest: verify failed:\n  %s", strings.Join(v.Messages, "\n  "))
	}
	return v.Pass
}

// Coverage returns what the mock served the client since the journal was
// last emptied, as GET /harness/coverage answers it: the command variants,
// page shapes, refusals and faults (and in the edge world the enum values,
// branches and edge classes) served, and those never served. It logs the
// coverage's text form to tb, which go test shows with -v or on failure.
func (s *Server) Coverage(tb testing.TB) mockserver.Coverage {
	tb.Helper()
	c, err := s.mock.Coverage()
	if err != nil { // no requirement given: none can be wrong
		tb.Fatalf("mocktest: coverage: %v", err)
	}
	var b strings.Builder
	c.WriteText(&b)
	tb.Log("mocktest: " + b.String())
	return c
}

// AssertCovered fails the test unless the mock served each item required
// since the journal was last emptied: "page:backward", "refusal:invalid-cursor",
// "variant:Submit Order", "fault:*" (every item of a kind), or several
// separated by commas (docs/testing-with-the-mock.md lists the items). A
// requirement naming no item the mock could serve fails the test too. It
// reports whether every item was served.
func (s *Server) AssertCovered(tb testing.TB, require ...string) bool {
	tb.Helper()
	c, err := s.mock.Coverage(require...)
	if err != nil {
		tb.Errorf("mocktest: %v", err)
		return false
	}
	if !c.Pass {
		tb.Errorf("mocktest: required and never served: %s", strings.Join(c.Missing, ", "))
	}
	return c.Pass
}
