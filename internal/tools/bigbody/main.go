// Command bigbody is a server whose answers are as large as asked: every
// request gets a JSON body of at least --size bytes. make
// bench-conform-memory runs harness conform against it and reports the
// conform process's peak memory, which must stay bounded whatever a server
// sends.
//
// Without --upstream, every path answers 200 with a network parameters page
// whose one row is repeated until the body reaches --size: the conform
// preflight's first request meets it. With --upstream URL (a harness
// serve), each request is asked of the upstream and its answer grown: the
// elements of the answer's first non-empty array (its edges, its
// transactions, an error's details) repeated until the body reaches --size,
// status and headers kept. Requests for one row (the preflight's) are
// passed on unchanged, so that a conform run gets past the preflight and
// every rule meets the big bodies.
//
//	go run ./internal/tools/bigbody --addr 127.0.0.1:18190 --size 50000000 --upstream http://127.0.0.1:18181
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18190", "listen on `ADDR`")
	size := flag.Int("size", 50_000_000, "the least bytes of every body")
	upstream := flag.String("upstream", "", "grow the answers of the server at `URL` (empty: answer one big page everywhere)")
	flag.Parse()
	srv := &http.Server{Addr: *addr, Handler: newServer(*size, *upstream), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "bigbody: answering bodies of at least %d bytes on http://%s\n", *size, *addr)
	log.Fatal(srv.ListenAndServe())
}

// server answers every request with a body of at least size bytes.
type server struct {
	size     int
	upstream string
	client   *http.Client

	mu sync.Mutex
	// grown holds each big answer made, by path and upstream status: the
	// bodies are made once, not per request.
	grown map[string]answer
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func newServer(size int, upstream string) *server {
	return &server{size: size, upstream: strings.TrimRight(upstream, "/"), client: &http.Client{Timeout: time.Minute}, grown: map[string]answer{}}
}

// fixedPage is the page grown when there is no upstream.
const fixedPage = `{"networkParameters":{"edges":[{"node":{"key":"market.fee.factors.makerFee","value":"0.0002"},"cursor":"eyJrZXkiOiJtYXJrZXQuZmVlLmZhY3RvcnMubWFrZXJGZWUifQ=="}],` +
	`"pageInfo":{"hasNextPage":false,"hasPreviousPage":false,"startCursor":"eyJrZXkiOiJtYXJrZXQuZmVlLmZhY3RvcnMubWFrZXJGZWUifQ==","endCursor":"eyJrZXkiOiJtYXJrZXQuZmVlLmZhY3RvcnMubWFrZXJGZWUifQ=="}}}`

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, err := s.answer(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(a.body)))
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// answer is the answer to r: the upstream's, grown unless r asks for one
// row.
func (s *server) answer(r *http.Request) (answer, error) {
	if s.upstream == "" {
		return s.cached("fixed", func() (answer, error) {
			body, err := grow([]byte(fixedPage), s.size)
			return answer{http.StatusOK, http.Header{"Content-Type": {"application/json"}}, body}, err
		})
	}
	up, err := s.ask(r)
	if err != nil || oneRow(r) {
		return up, err
	}
	return s.cached(r.URL.Path+" "+strconv.Itoa(up.status), func() (answer, error) {
		body, err := grow(up.body, s.size)
		up.header.Del("Content-Length")
		return answer{up.status, up.header, body}, err
	})
}

// cached returns the answer made under key, making it once.
func (s *server) cached(key string, make func() (answer, error)) (answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.grown[key]; ok {
		return a, nil
	}
	a, err := make()
	if err == nil {
		s.grown[key] = a
	}
	return a, err
}

// ask asks the upstream the same request.
func (s *server) ask(r *http.Request) (answer, error) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, s.upstream+r.URL.RequestURI(), nil)
	if err != nil {
		return answer{}, fmt.Errorf("upstream request: %w", err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("upstream: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("upstream body: %w", err)
	}
	return answer{resp.StatusCode, resp.Header.Clone(), body}, nil
}

// oneRow reports whether r asks for one row, as the conform preflight
// does.
func oneRow(r *http.Request) bool {
	q := r.URL.Query()
	for _, p := range []string{"pagination.first", "pagination.last", "first", "last"} {
		if q.Get(p) == "1" {
			return true
		}
	}
	return false
}

// grow returns the JSON document body with the elements of its first
// non-empty array (depth first, an object's keys in sorted order) repeated
// until the document is at least size bytes; a document with no such
// array gets a "padding" array of strings (wrapped in an object when it is
// not one). A document that is a non-empty array grows itself.
func grow(body []byte, size int) ([]byte, error) {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		doc = map[string]any{"notJSON": string(body)}
	}
	if a, ok := doc.([]any); ok && len(a) > 0 {
		doc = repeat(a, size)
	} else if !growFirst(doc, size) {
		obj, ok := doc.(map[string]any)
		if !ok {
			obj = map[string]any{"value": doc}
			doc = obj
		}
		obj["padding"] = []any{strings.Repeat("x", 1000)}
		growFirst(doc, size)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("grow: %w", err)
	}
	return out, nil
}

// growFirst repeats the elements of the first non-empty array inside v
// (an object or an array) until they make at least size bytes, and
// reports whether it found one.
func growFirst(v any, size int) bool {
	switch t := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(t))
		for _, k := range keys {
			if a, ok := t[k].([]any); ok && len(a) > 0 {
				t[k] = repeat(a, size)
				return true
			}
		}
		for _, k := range keys {
			if growFirst(t[k], size) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if growFirst(e, size) {
				return true
			}
		}
	}
	return false
}

// repeat returns a's elements repeated until they encode to at least size
// bytes.
func repeat(a []any, size int) []any {
	one, err := json.Marshal(a)
	if err != nil {
		return a
	}
	// Each copy encodes to the array without its brackets, and more with
	// the comma before it.
	times := size/max(len(one)-2, 1) + 1
	out := make([]any, 0, times*len(a))
	for range times {
		out = append(out, a...)
	}
	return out
}
