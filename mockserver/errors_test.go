package mockserver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/store"
)

// listingPaths are the paths of the five listings (transactions twice).
var listingPaths = []string{
	"/api/v2/games", "/api/v2/snapshots", "/api/v2/core/keys/ethereum/rotations",
	"/api/v2/network/parameters", "/transactions", "/rest/transactions",
}

var (
	errNotFoundBody = wantErr{status: 404, detail: detailNotMapped, text: "the listings are at /api/v2/games, /api/v2/snapshots"}
	errMethodBody   = wantErr{status: 501, text: "Method Not Allowed"}
)

// TestUnknownPaths checks any path that is not a listing's is a 404 error
// body, whatever the method, including paths that only clean to one.
func TestUnknownPaths(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, pagingWorld(t))
	paths := []string{
		"/", "/api", "/api/v2", "/api/v2/", "/api/v2/games/", "/api/v2/games/x", "/api/v2/game",
		"/api/v1/games", "/API/V2/GAMES", "/api/v2/Games", "/api/v2/snapshot", "/api/v2/core/keys/ethereum",
		"/api/v2/core/keys/ethereum/rotations/", "/api/v2/network/parameters/x", "/api/v2/network",
		"/rest", "/rest/", "/transactions/", "/transaction", "/rest/transactions/x", "/favicon.ico",
		"/api/v2//games", "/api/v2/./games", "/api/v2/x/../games", "//transactions", "/rest/../transactions",
		"/api/v2/games%2F", "/api/v2/games/.",
	}
	for _, p := range paths {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			t.Run(m+" "+p, func(t *testing.T) {
				checkError(t, s.do(t, m, p, "pagination.first=1", nil), errNotFoundBody)
			})
		}
	}
}

// TestMethods checks GET and HEAD serve each listing, and any other method
// is a 501 error body.
func TestMethods(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, pagingWorld(t))
	for _, p := range listingPaths {
		for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions, http.MethodTrace, "PROPFIND"} {
			t.Run(m+" "+p, func(t *testing.T) {
				checkError(t, s.do(t, m, p, "", nil), errMethodBody)
			})
		}
		t.Run("HEAD "+p, func(t *testing.T) {
			get := s.get(t, p, "pagination.first=2&first=2")
			head := s.do(t, http.MethodHead, p, "pagination.first=2&first=2", nil)
			if head.status != http.StatusOK {
				t.Fatalf("%s: status %d, want 200", head, head.status)
			}
			if cl := head.header.Get("Content-Length"); cl != strconv.Itoa(len(get.body)) {
				t.Errorf("%s: Content-Length %q, want %d as for GET", head, cl, len(get.body))
			}
		})
		t.Run("CONNECT "+p, func(t *testing.T) {
			// A client cannot send CONNECT with a path; the handler must
			// still answer it properly.
			st, err := store.New(emptyWorld())
			if err != nil {
				t.Fatal(err)
			}
			req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Path: p}, Header: http.Header{}, Host: "x"}
			rec := httptest.NewRecorder()
			New(Config{}, st).ServeHTTP(rec, req.WithContext(context.Background()))
			r := &response{req: "CONNECT " + p, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			checkResponse(t, http.MethodConnect, p, r)
			checkError(t, r, errMethodBody)
		})
	}
}

// TestMalformedQueries checks a query string that does not parse is a 400,
// never a silently dropped parameter.
func TestMalformedQueries(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, pagingWorld(t))
	queries := []string{"pagination.first=%zz", "%zz=1", "pagination.first=2;x=1", "a=1;b=2", "first=%", "cmdTypes=%G1"}
	for _, p := range listingPaths {
		for _, q := range queries {
			t.Run(p+"?"+q, func(t *testing.T) {
				checkError(t, s.get(t, p, q), wantErr{status: 400, text: "parsing query"})
			})
		}
	}
}

// TestInternalErrors checks the 500 class: an injected fault on any path,
// and a panic, are the error body with code 13.
func TestInternalErrors(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{FailRate: 1}, pagingWorld(t))
	for _, p := range append(listingPaths, "/nowhere") {
		for _, q := range []string{"", "pagination.first=0"} {
			t.Run(p+"?"+q, func(t *testing.T) {
				r := s.get(t, p, q)
				if r.status != 500 {
					t.Fatalf("%s: status %d, want 500", r, r.status)
				}
				e := r.apiError(t)
				if e.Code != 13 || e.Message != "Internal error" || len(e.Details) != 1 {
					t.Errorf("%s: %s, want code 13, \"Internal error\" and one detail", r, r.body)
				}
			})
		}
	}
	t.Run("a panic", func(t *testing.T) {
		tests := []struct {
			name  string
			panic any
		}{{"a string", "boom"}, {"an error", context.Canceled}, {"nil pointer", (*int)(nil)}}
		for _, tc := range tests {
			h := recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(tc.panic) }), nil)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v2/games", nil))
			r := &response{req: "panic " + tc.name, status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
			if r.status != 500 || r.apiError(t).Code != 13 {
				t.Errorf("%s: status %d, body %s; want a 500 with code 13", r, r.status, r.body)
			}
			if err := validateCached("Error", r.body); err != nil {
				t.Errorf("%s: %v", r, err)
			}
		}
	})
}

// TestLargeQueries checks big inputs are answered promptly, not hung on.
func TestLargeQueries(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, txWorld(t))
	var many bytes.Buffer
	for i := range 3000 {
		many.WriteString("parties=" + hexID(strconv.Itoa(i)) + "&cmdTypes=t" + strconv.Itoa(i) + "&")
	}
	long := strings.Repeat("A", 200_000)
	tests := []struct {
		path, query string
		status      int
	}{
		{"/transactions", many.String(), 200},
		{"/transactions", many.String() + "excludeCmdTypes=x", 200},
		{"/transactions", "before=" + long, 400},
		{"/api/v2/games", "pagination.after=" + long, 400},
		{"/api/v2/games", "partyId=" + long + "&teamId=" + long + "&gameId=" + long, 200},
		{"/api/v2/core/keys/ethereum/rotations", "nodeId=" + long, 200},
		{"/api/v2/network/parameters", "pagination.before=" + url.QueryEscape(paramsListing.cursor(rowKey{s: long})) + "&pagination.last=3", 200},
	}
	for _, tc := range tests {
		t.Run(tc.path+" "+tc.query[:20], func(t *testing.T) {
			start := time.Now()
			r := s.get(t, tc.path, tc.query)
			if r.status != tc.status {
				t.Fatalf("%.200s: status %d, want %d", r, r.status, tc.status)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%.200s took %v", r, d)
			}
		})
	}
}
