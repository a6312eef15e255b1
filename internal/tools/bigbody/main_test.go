package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func get(t *testing.T, url string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// TestFixedPage: without an upstream every path answers a valid page of at
// least the size asked.
func TestFixedPage(t *testing.T) {
	const size = 100_000
	srv := httptest.NewServer(newServer(size, ""))
	defer srv.Close()
	for _, path := range []string{"/api/v2/network/parameters?pagination.first=1", "/anything/else"} {
		status, header, body := get(t, srv.URL+path)
		if status != http.StatusOK || header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: HTTP %d %q, want 200 application/json", path, status, header.Get("Content-Type"))
		}
		var page struct {
			NetworkParameters struct {
				Edges []json.RawMessage `json:"edges"`
			} `json:"networkParameters"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatalf("%s: not a page: %v", path, err)
		}
		if len(body) < size || len(page.NetworkParameters.Edges) < 2 {
			t.Errorf("%s: %d bytes, %d edges; want at least %d bytes of repeated edges", path, len(body), len(page.NetworkParameters.Edges), size)
		}
	}
}

// TestUpstreamGrown: with an upstream, answers keep its status and headers
// with their first array grown; one-row requests pass unchanged.
func TestUpstreamGrown(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Block-Height", "7")
		switch r.URL.Path {
		case "/transactions":
			io.WriteString(w, `{"transactions":[{"block":"1"},{"block":"2"}]}`)
		case "/error":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"code":3,"message":"bad","details":[]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `not json`)
		}
	}))
	defer up.Close()
	const size = 50_000
	srv := httptest.NewServer(newServer(size, up.URL))
	defer srv.Close()
	tests := []struct {
		name, path string
		status     int
		exact      string // the upstream's body, unchanged
		key        string // the grown array's key
	}{
		{name: "one row passes", path: "/transactions?first=1", status: 200, exact: `{"transactions":[{"block":"1"},{"block":"2"}]}`},
		{name: "one row backwards passes", path: "/transactions?last=1", status: 200, exact: `{"transactions":[{"block":"1"},{"block":"2"}]}`},
		{name: "a page grown", path: "/transactions?first=5", status: 200, key: "transactions"},
		{name: "no non-empty array: padded", path: "/error", status: 400, key: "padding"},
		{name: "not JSON: wrapped and padded", path: "/nowhere", status: 404, key: "padding"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := get(t, srv.URL+tc.path)
			if status != tc.status || header.Get("X-Block-Height") != "7" {
				t.Errorf("HTTP %d, X-Block-Height %q; want %d and the upstream's header", status, header.Get("X-Block-Height"), tc.status)
			}
			if tc.exact != "" {
				if string(body) != tc.exact {
					t.Errorf("body %q, want the upstream's %q", body, tc.exact)
				}
				return
			}
			var doc map[string]any
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatalf("grown body is not JSON: %v", err)
			}
			arr, _ := doc[tc.key].([]any)
			if len(body) < size || len(arr) < 2 {
				t.Errorf("%d bytes, %d elements under %q; want at least %d bytes", len(body), len(arr), tc.key, size)
			}
		})
	}
	// The second request for a path is served from what the first made.
	_, _, first := get(t, srv.URL+"/transactions?first=5")
	_, _, again := get(t, srv.URL+"/transactions?first=9")
	if string(first) != string(again) {
		t.Error("a path's big answer was made twice, differently")
	}
}

// TestUpstreamDown: an upstream that cannot be asked is a 502 saying so.
func TestUpstreamDown(t *testing.T) {
	srv := httptest.NewServer(newServer(10, "http://127.0.0.1:1"))
	defer srv.Close()
	status, _, body := get(t, srv.URL+"/x")
	if status != http.StatusBadGateway || !strings.Contains(string(body), "upstream") {
		t.Errorf("HTTP %d %q, want 502 naming the upstream", status, body)
	}
}

// TestGrowNested: the first non-empty array is found inside objects and
// arrays, keys in sorted order.
func TestGrowNested(t *testing.T) {
	out, err := grow([]byte(`{"b":{"edges":[1]},"a":{"x":[],"y":{"z":[2,3]}}}`), 100)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		A struct {
			X []int `json:"x"`
			Y struct {
				Z []int `json:"z"`
			} `json:"y"`
		} `json:"a"`
		B struct {
			Edges []int `json:"edges"`
		} `json:"b"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.A.Y.Z) < 40 || len(doc.B.Edges) != 1 || len(doc.A.X) != 0 {
		t.Errorf("grew %s; want a.y.z alone grown", out)
	}
	if doc.A.Y.Z[0] != 2 || doc.A.Y.Z[1] != 3 || doc.A.Y.Z[2] != 2 {
		t.Errorf("a.y.z starts %v, want the elements repeated in order", doc.A.Y.Z[:3])
	}
	if arr, err := grow([]byte(`[1,2]`), 50); err != nil || !strings.HasPrefix(string(arr), "[1,2,1,2") {
		t.Errorf("a top-level array grows itself: %s, %v", arr, err)
	}
	if s, err := grow([]byte(`"str"`), 50); err != nil || !strings.Contains(string(s), `"value":"str"`) || !strings.Contains(string(s), `"padding"`) {
		t.Errorf("a scalar is wrapped and padded: %s, %v", s, err)
	}
}
